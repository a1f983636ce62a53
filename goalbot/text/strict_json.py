"""JSON from a file a person hands in, read as hostile input: no NaN or Infinity, no number of
thousands of digits, no nesting deep enough to exhaust the interpreter. Every problem is one line."""

from __future__ import annotations

import json
from typing import Any


class NotStrictJson(ValueError):
    """The text is not strict JSON; the message says where and why, in one line."""


def strict_loads(text: str, where: str, what: str) -> Any:
    """`text` parsed; `where` names the file and `what` the thing it should hold ("a recipe")."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not a number {what} may hold")

    try:
        return json.loads(text, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        raise NotStrictJson(f"{where} is not JSON: {exc.msg} at line {exc.lineno}") from exc
    except RecursionError as exc:
        raise NotStrictJson(f"{where} is nested too deeply to be {what}") from exc
    except ValueError as exc:  # NaN, Infinity, a number of thousands of digits
        raise NotStrictJson(f"{where}: {str(exc).splitlines()[0]}") from exc

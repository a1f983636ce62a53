"""A file of JSON lines a person hands in (batch jobs, tuning tasks), read as hostile input: a
regular file of bounded size, strict JSON a line, each line a pydantic model. Blank lines and
`#` comments are skipped; every problem is one line that names the line."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from goalbot.text.plain_errors import in_words
from goalbot.text.regular_file import read_regular_text
from goalbot.text.strict_json import NotStrictJson, strict_loads

M = TypeVar("M", bound=BaseModel)


class JsonLinesError(ValueError):
    """The file or one of its lines cannot be read; the message says where and why."""


def read_json_lines(path: Path, model: type[M], what: str, max_bytes: int,
                    where: Callable[[int], str]) -> Iterator[tuple[str, M]]:
    """Each line's place (as `where` names line N) and its model. `what` says what a line is ("a job")."""
    if not path.is_file():  # a FIFO or a device would block the read, or never end
        raise JsonLinesError(f"{path} is not a file")
    if path.stat().st_size > max_bytes:
        raise JsonLinesError(f"{path} is over {max_bytes // 1_000_000} MB")
    try:
        lines = read_regular_text(path, max_bytes).splitlines()  # a FIFO swapped in after the check: refused too
    except (OSError, UnicodeDecodeError) as exc:
        raise JsonLinesError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        place = where(number)
        try:
            yield place, model.model_validate(strict_loads(line, place, what))
        except NotStrictJson as exc:
            raise JsonLinesError(str(exc)) from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or what.replace("a ", "the ", 1)
            raise JsonLinesError(f"{place}: {field} {in_words(first)}") from exc

"""Regular expressions from outside — a schema's `pattern` and `patternProperties`, a policy's
`matches` — run by RE2, whose time grows with the text and never explodes, whatever the pattern
(`^(a+)+$` on a long line included). What RE2 cannot run (backreferences, lookaround) is refused
when the pattern is handed in, with why."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

MAX_PATTERN_BYTES = 2_000
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refusal is said once, by whoever handed the pattern in
_OPTIONS.max_mem = 8 << 20  # a pattern whose program needs more is refused, not run


class PatternError(ValueError):
    """A pattern that cannot be run in linear time; the message says why."""


@lru_cache(maxsize=512)
def linear(pattern: str) -> Any:
    """`pattern` compiled by RE2; PatternError when it cannot be."""
    if len(pattern.encode("utf-8")) > MAX_PATTERN_BYTES:
        raise PatternError(f"a pattern is at most {MAX_PATTERN_BYTES} bytes")
    try:
        return re2.compile(pattern, options=_OPTIONS)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(f"{pattern[:80]!r} is not a pattern RE2 can run ({why}); RE2 runs every pattern "
                           "in time linear in the text, and has no backreferences or lookaround") from exc


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` is found in `text`, in time linear in the text."""
    return linear(pattern).search(text) is not None

"""Editing a proposed plan with short commands, for the terminal prompt (and anything else that
takes a line of text): change, delete, move, add and insert steps."""

from __future__ import annotations

import re

HELP = ("edit commands: `N text` change step N · `d N` delete · `m N M` move N to position M · "
        "`a text` add at the end · `i N text` insert before N · `y` approve · `r feedback` reject")


class EditError(ValueError):
    """A command that cannot apply; the message says why, for the person."""


def _position(text: str, steps: list[str], extra: int = 0) -> int:
    number = int(text)
    if not 1 <= number <= len(steps) + extra:
        raise EditError(f"there is no step {number} (the plan has {len(steps)})")
    return number - 1


def apply(steps: list[str], command: str) -> list[str]:
    """The steps after one edit command; raises EditError for a command that does not fit."""
    command = command.strip()
    steps = list(steps)
    if m := re.fullmatch(r"d\s+(\d+)", command):
        del steps[_position(m[1], steps)]
    elif m := re.fullmatch(r"m\s+(\d+)\s+(\d+)", command):
        step = steps.pop(_position(m[1], steps))
        steps.insert(_position(m[2], steps, extra=1), step)
    elif m := re.fullmatch(r"a\s+(.+)", command):
        steps.append(m[1].strip())
    elif m := re.fullmatch(r"i\s+(\d+)\s+(.+)", command):
        steps.insert(_position(m[1], steps, extra=1), m[2].strip())
    elif m := re.fullmatch(r"(\d+)\s+(.+)", command):
        steps[_position(m[1], steps)] = m[2].strip()
    else:
        raise EditError(f"not an edit command: {command!r}; {HELP}")
    return steps


def numbered(steps: list[str]) -> str:
    return "\n".join(f"  {n}. {step}" for n, step in enumerate(steps, 1)) or "  (no steps)"

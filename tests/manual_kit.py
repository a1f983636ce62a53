"""The shell blocks of the README and the manual, as the tests that run them as written find them."""

from __future__ import annotations

import re
from pathlib import Path

# `before`: the one line above the fence (a marker comment, or not); the body may hold many.
SHELL_BLOCK = re.compile(r"^(?P<before>[^\n]*)\n```(?:sh|bash|shell|console)\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)
LEFT_BEHIND_ENDS = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
SET_UP = "<!-- set-up:"  # the README's `make demo` / `make test`: CI runs the one, test_make_demo.py the other
LOCAL_MODEL = "<!-- local-model:"  # needs `make local-model`'s server: tests/local_model runs these


def shell_blocks(page: Path, marked: str | None = None) -> list[str]:
    """The page's shell blocks; with `marked`, only those under that comment, else those under none."""
    text = page.read_text(encoding="utf-8")
    found = [(match["before"].rsplit("\n", 1)[-1], match["body"]) for match in SHELL_BLOCK.finditer(text)]
    if marked is not None:
        return [body for before, body in found if before.startswith(marked)]
    return [body for before, body in found if not before.startswith((SET_UP, LOCAL_MODEL))]

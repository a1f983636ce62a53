"""Talking to the person at the terminal: the one-line failure, and whether anyone is there."""

from __future__ import annotations

import sys


def fail(message: str) -> int:
    """Says what is wrong in one line; 2 is the exit status of bad flags, settings or store."""
    print(f"goalbot: {message}", file=sys.stderr)
    return 2


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()

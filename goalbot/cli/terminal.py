"""Talking to the person at the terminal: the one-line failure, and whether anyone is there."""

from __future__ import annotations

import json
import os
import sys

from goalbot.service.refusal import Refusal
from goalbot.text.eventfmt import printable


def fail(message: str | Refusal) -> int:
    """Says what is wrong in one line; 2 is the exit status of bad flags, settings or store."""
    line = message.line() if isinstance(message, Refusal) else message
    print(f"goalbot: {printable(line)}", file=sys.stderr)  # it may quote a file or a page
    return 2


def refused(refusal: Refusal, as_json: bool) -> int:
    """A refusal said in one line; with --json, also as the one JSON document stdout holds."""
    if as_json:
        print(json.dumps({"session": None, "status": "refused", "result": None, "valid": False, "errors": [],
                          "error": {"code": refusal.code, "message": refusal.message, "hint": refusal.hint}},
                         ensure_ascii=False))
    return fail(refusal)


def say(line: str) -> None:
    """A line of the service's for the person, on stderr beside the events."""
    print(f"goalbot: {printable(line)}", file=sys.stderr, flush=True)


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def stop_printing() -> None:
    """The reader of standard output went away (`goalbot run --no-tui | head`): what is printed
    from now on goes nowhere, while the run it describes goes on to its end and its store."""
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, sys.stdout.fileno())
    os.close(nowhere)


def emit(line: str) -> None:
    """A line of output a program reads: a reader that went away (`| head -1`) stops the lines, never
    the work they describe, which goes on to its end and its store."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        stop_printing()


# Select Graphic Rendition codes for the 16 colours every terminal has.
SGR = {"error": "1;31", "warning": "33", "success": "32", "notice": "36", "routine": "2"}


def colours_wanted() -> bool:
    """On a terminal, unless NO_COLOR says otherwise; never into a pipe or a file."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def coloured(line: str, severity: str) -> str:
    return f"\x1b[{SGR[severity]}m{line}\x1b[0m"

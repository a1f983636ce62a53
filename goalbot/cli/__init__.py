"""The command line: the composition root, and the only package that imports `storage` and `tui`."""

from typing import NoReturn

from goalbot.cli.commands import main
from goalbot.cli.leaving import run_and_leave

__all__ = ["entry", "main"]


def entry() -> NoReturn:
    """The `goalbot` console script and `python -m goalbot`."""
    run_and_leave(main)

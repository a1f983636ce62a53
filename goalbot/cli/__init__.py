"""The command line: the composition root, and the only package that imports `storage` and `tui`."""

import sys
from typing import Any, NoReturn

__all__ = ["entry", "main"]


def entry() -> NoReturn:
    """The `goalbot` console script and `python -m goalbot`."""
    from goalbot.cli.warm_start import warm_up

    warm_up(sys.argv[1:])  # before the parser's modules load, which takes as long as Node's boot
    from goalbot.cli.commands import main
    from goalbot.cli.leaving import run_and_leave

    run_and_leave(main)


def __getattr__(name: str) -> Any:
    if name == "main":  # loaded when asked for, so that `entry` can start work before it
        from goalbot.cli.commands import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

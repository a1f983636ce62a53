"""How the `goalbot` process ends once its command is done."""

from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn

# What a shell reports for a program ended by SIGPIPE: `goalbot sessions | head` ends as `yes | head` does.
READER_LEFT = 128 + 13


def run_and_leave(main: Callable[[], int]) -> NoReturn:
    """Runs the command, then leaves at once. By the time `main` returns, every command has
    closed its store and its browser; what the interpreter would still do — free every module,
    wait on daemon threads — costs a third of a second and saves nothing."""
    try:
        code = main()
    except SystemExit as exc:  # argparse's usage errors, and --help
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except BrokenPipeError:  # the reader went away (`| head`): a Unix tool stops quietly
        code = READER_LEFT
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            code = code or READER_LEFT
        except (OSError, ValueError):
            pass
    os._exit(code)

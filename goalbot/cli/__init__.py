"""The command line: the composition root, and the only package that imports `storage` and `tui`."""

from goalbot.cli.commands import main

__all__ = ["main"]

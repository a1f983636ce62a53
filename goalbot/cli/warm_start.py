"""Which commands have their Playwright driver spawned before they load (see
`goalbot.operators.browser.early`): one browser for one run, so the half second Node takes to boot
is spent while Python imports the command, not after it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from goalbot.operators.browser.early import discard_driver, spawn_driver

BROWSER_COMMANDS = frozenset({"run", "rerun", "resume", "demo"})
# The flags before a command word that take a value (the store, pictures, the model's): kept equal
# to the parser's by a test.
GLOBAL_FLAGS_WITH_VALUES = frozenset({
    "--db", "--images", "--base-url", "--model", "--api-key", "--dialect", "--coords", "--model-timeout",
    "--model-retries", "--max-answer-tokens", "--planner-model", "--navigator-model", "--validator-model",
    "--patcher-model", "--extractor-model", "--matcher-model",
})


def named_command(argv: Sequence[str]) -> str | None:
    """The command word, read before the parser exists; a wrong guess costs a driver stopped unused."""
    words = iter(argv)
    for word in words:
        if word in GLOBAL_FLAGS_WITH_VALUES:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def warm_up(argv: Sequence[str]) -> None:
    asks_help = any(word in ("-h", "--help") for word in argv)
    if named_command(argv) in BROWSER_COMMANDS and not asks_help:
        spawn_driver()


def settle_driver(args: argparse.Namespace, operator: str) -> None:
    """Keeps the driver for a command that will start one browser for one run, stops it for any
    other (MCP, batches and the dashboard start theirs when a goal comes)."""
    wanted = args.command in BROWSER_COMMANDS and operator == "browser" and not getattr(args, "serve_only", False)
    if wanted:
        spawn_driver()
    else:
        discard_driver()

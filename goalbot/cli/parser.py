"""argparse as a newcomer needs it: a typo answered with the closest flag, command or choice; the
global options accepted before or after the command; every command described in its own help."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import Any, Iterator, NoReturn, Sequence

from goalbot.cli.flags import add_image_flag, setting_help

LONG_USAGE = 16  # option strings past which a usage line would fill the screen
CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)")


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # A prefix of a flag is never taken for it: `--secret` read as `--secrets-file` runs with
        # something else than what was typed. Subcommands' parsers are made by this class too.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {_with_suggestion(message)}\n")


def add_global_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    """`--db` and `--images`: the top level keeps their defaults; a command's copy has none, so a
    value given before the command is not undone by the command's parser."""
    group = parser.add_argument_group("global options")
    group.add_argument("--db", type=Path, metavar="FILE", default=default, help=setting_help("db"))
    add_image_flag(group)


def finish(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Every command takes the global options and says in its help what it does."""
    shared = _top_level_dests(parser)
    for command, summary in _commands(parser):
        if command.description is None:
            command.description = summary
        if "--db" not in command._option_string_actions:
            add_global_flags(command, default=argparse.SUPPRESS)
        _leave_defaults_to_top(command, shared)
        if len(command._option_string_actions) > LONG_USAGE:  # the sections below list them all
            command.usage = " ".join(["%(prog)s [options]", *_positionals(command)])
    if len(parser._option_string_actions) > LONG_USAGE:
        parser.usage = "%(prog)s [options] [COMMAND] ..."
    return parser


def _top_level_dests(parser: argparse.ArgumentParser) -> set[str]:
    """The options the top level keeps a default for (`--db`, the model flags)."""
    return {action.dest for action in parser._actions
            if action.option_strings and action.default is not argparse.SUPPRESS}


def _leave_defaults_to_top(command: argparse.ArgumentParser, shared: set[str]) -> None:
    """A command's copy of a top-level option sets nothing when not given: argparse copies a
    command's defaults over what was parsed before it, so `goalbot --model M run …` would lose M."""
    for action in command._actions:
        if action.option_strings and action.dest in shared:
            action.default = argparse.SUPPRESS


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Like `parse_args`, but an unknown flag is reported by the command it was given to, with the
    closest flag that command has."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        command = _chosen(parser, args)
        word = unknown[0].split("=", 1)[0]
        flags = [flag for flag in command._option_string_actions if flag.startswith("--")]
        kind = "flag" if word.startswith("-") else "argument"
        command.error(f"unknown {kind} {word}{_closest(word, flags)}")
    return args


def _commands(parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.ArgumentParser, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, command in action.choices.items():
                yield command, summaries.get(name, "")
                yield from _commands(command)


def _positionals(parser: argparse.ArgumentParser) -> list[str]:
    return [action.metavar if isinstance(action.metavar, str) else action.dest for action in parser._actions
            if not action.option_strings and action.dest != argparse.SUPPRESS]


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost command the arguments name (`goalbot recipe show` → its parser)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(args, action.dest, None)
            if name in action.choices:
                return _chosen(action.choices[name], args)
    return parser


def _closest(word: str, candidates: Sequence[str]) -> str:
    match = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return f"; did you mean {match[0]}?" if match else ""


def _with_suggestion(message: str) -> str:
    found = CHOICE.search(message)
    if found is None:
        return message
    choices = re.findall(r"'([^']*)'", found["choices"])
    return message + _closest(found["word"], choices)

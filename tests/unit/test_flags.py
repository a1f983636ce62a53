"""The command line as a newcomer meets it: typos answered with the closest flag or command, the
global options accepted anywhere, every command and argument explained."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kit import run_cli, store_with_sessions


@pytest.mark.parametrize(("args", "said"), [
    (("run", "buy milk", "--urll", "http://shop.test"), "goalbot run: error: unknown flag --urll; did you mean --url?"),
    (("recipe", "show", "x", "--versoin", "2"), "goalbot recipe show: error: unknown flag --versoin; did you mean --version?"),
    (("sesions",), "invalid choice: 'sesions'"),
    (("run", "x", "--images", "sixle"), "did you mean sixel?"),
    (("tail", "--folow"), "did you mean --follow?"),
])
def test_a_typo_gets_the_closest_flag_and_the_commands_usage(args: tuple[str, ...], said: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert said in result.stderr
    assert result.stderr.startswith(f"usage: goalbot {args[0] if args[0] != 'sesions' else ''}".rstrip())
    assert "Traceback" not in result.stderr


def test_an_unknown_command_is_answered_with_the_closest_one() -> None:
    assert "did you mean sessions?" in run_cli("sesions").stderr


@pytest.mark.parametrize("args", [
    ("sessions", "--plain", "--db", "{db}"),
    ("--db", "{db}", "sessions", "--plain"),
    ("tail", "-n", "3", "--db", "{db}"),
    ("report", "--db", "{db}", "s002"),
])
def test_the_store_can_be_named_before_or_after_the_command(tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "elsewhere.db"
    store_with_sessions(db)
    result = run_cli(*(a.format(db=db) for a in args), env={"GOALBOT_DB": str(tmp_path / "not-this.db")})
    assert result.returncode == 0, result.stderr
    assert "goal" in result.stdout or "POLICY" in result.stdout


def test_a_store_named_before_the_command_is_not_undone_by_it(tmp_path: Path) -> None:
    from goalbot.cli.commands import build_parser

    args = build_parser().parse_args(["--db", "a.db", "--images", "none", "tail"])
    assert args.db == Path("a.db") and args.images == "none"
    args = build_parser().parse_args(["--db", "a.db", "tail", "--db", "b.db"])
    assert args.db == Path("b.db")  # the later one wins, as with any repeated flag


def every_command(parser: argparse.ArgumentParser, name: str = "goalbot") -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, command in action.choices.items():
                found += every_command(command, f"{name} {sub}")
    return found


def test_every_command_says_what_it_does_and_every_argument_has_help() -> None:
    from goalbot.cli.commands import build_parser

    commands = every_command(build_parser())
    assert len(commands) > 15
    for name, command in commands:
        assert command.description, f"{name} has no description"
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help line"


def test_run_help_is_in_sections_with_a_short_usage() -> None:
    result = run_cli("run", "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: goalbot run [options] goal\n")
    for section in ("model:", "browser:", "you and the run:", "limits:", "pace (what the site sees):",
                    "where pages may go:", "secrets:", "recipe:", "global options:"):
        assert f"\n{section}\n" in result.stdout, section


def test_the_early_driver_knows_every_flag_with_a_value_that_may_come_before_a_command() -> None:
    import argparse

    from goalbot.cli.commands import build_parser
    from goalbot.cli.warm_start import GLOBAL_FLAGS_WITH_VALUES, named_command

    parser = build_parser()
    taking = {option for action in parser._actions if action.option_strings and action.nargs != 0
              and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))
              for option in action.option_strings if option.startswith("--")}
    assert taking == GLOBAL_FLAGS_WITH_VALUES
    assert named_command(["--base-url", "http://127.0.0.1:8000/v1", "--model", "m", "run", "a goal"]) == "run"

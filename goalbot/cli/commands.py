"""The `goalbot` command: its parser, and which module runs each command.

A command's module is imported only when that command runs, so `goalbot tail` or `goalbot --help`
never load the browser, the model client or the dashboard.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
from pathlib import Path
from typing import Callable, cast

from goalbot import defaults as D
from goalbot.cli.flags import (
    add_authoring_flag, add_browser_flags, add_model_flags, add_observe_parser, add_operator_flags,
    add_person_flags, add_recipe_flags, add_result_flags, add_run_flags, add_secret_flags,
    add_settings,
)
from goalbot.cli.warm_start import settle_driver
from goalbot.cli.completion_command import add_completion_parser
from goalbot.cli.mcp_command import add_mcp_parser
from goalbot.cli.trace_command import add_trace_parser
from goalbot.cli.profile_command import add_profile_parser
from goalbot.cli.tune_command import add_tune_parser
from goalbot.cli.eval_command import add_eval_parser
from goalbot.cli.worker_command import add_worker_parser
from goalbot.cli.parser import Parser, add_global_flags, finish, parse
from goalbot.service.settings import ConfigError, Settings, load_settings
from goalbot.cli.terminal import fail, has_terminal
from goalbot.events import RunStatus, clean_text
from goalbot.operators.browser.early import discard_driver
from storage.db import StoreError, default_path

Handler = Callable[[argparse.Namespace, Settings, Path], int]

COMMANDS: dict[str, tuple[str, str]] = {
    "dashboard": ("goalbot.cli.dashboard", "cmd_dashboard"),
    "attach": ("goalbot.cli.attach_command", "cmd_attach"),
    "replay": ("goalbot.cli.replay_command", "cmd_replay"),
    "run": ("goalbot.cli.run_command", "cmd_run"),
    "demo": ("goalbot.cli.demo_command", "cmd_demo"),
    "resume": ("goalbot.cli.resume_command", "cmd_resume"),
    "report": ("goalbot.cli.report_command", "cmd_report"),
    "sessions": ("goalbot.cli.sessions_command", "cmd_sessions"),
    "tail": ("goalbot.cli.tail_command", "cmd_tail"),
    "doctor": ("goalbot.cli.doctor_command", "cmd_doctor"),
    "stats": ("goalbot.cli.stats_command", "cmd_stats"),
    "observe": ("goalbot.cli.observe_command", "cmd_observe"),
    "recipe": ("goalbot.cli.recipe_command", "cmd_recipe"),
    "rerun": ("goalbot.cli.rerun_command", "cmd_rerun"),
    "mcp": ("goalbot.cli.mcp_command", "cmd_mcp"),
    "batch": ("goalbot.cli.batch_entry", "cmd_batch"),
    "worker": ("goalbot.cli.worker_command", "cmd_worker"),
    "trace": ("goalbot.cli.trace_command", "cmd_trace"),
    "tune": ("goalbot.cli.tune_command", "cmd_tune"),
    "eval": ("goalbot.cli.eval_command", "cmd_eval"),
    "profile": ("goalbot.cli.profile_command", "cmd_profile"),
    "completion": ("goalbot.cli.commands", "cmd_completion"),
    "skill": ("goalbot.cli.skill_command", "cmd_skill"),
}


def _handler(command: str) -> Handler:
    module, name = COMMANDS[command]
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("goalbot")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="goalbot", description="Reach a goal in a real browser: plan, approve, act, validate.")
    add_global_flags(parser)
    # Before any command, and for the dashboard alone (`goalbot --base-url URL`), which has no flags of its own.
    add_model_flags(parser)
    parser.add_argument("--version", action="version", version=f"goalbot {_version()}")
    # Each command's parser is a Parser; the modules that add them need only an ArgumentParser's calls.
    sub = cast("argparse._SubParsersAction[argparse.ArgumentParser]",
               parser.add_subparsers(dest="command", metavar="COMMAND"))

    run = sub.add_parser("run", help="reach a goal")
    run.add_argument("goal", help="what to reach, in your words")
    run.add_argument("--url", help="page to start from")
    add_model_flags(run)
    add_authoring_flag(run)
    add_browser_flags(run)
    add_operator_flags(run)
    add_run_flags(run)
    add_result_flags(run)
    add_recipe_flags(run, saving=True)
    run.add_argument("--no-recipes", action="store_true",
                     help="plan the goal even when a stored recipe surely does it (default: rerun that recipe)")

    demo = sub.add_parser("demo", help="watch goalbot reach a goal on a bundled site, with a scripted model")
    demo.add_argument("which", nargs="?", choices=["signin", "shop"], default="signin",
                      help="signin: sign in and turn on dark mode (default); shop: choose a lamp by a policy and "
                           "put it in the cart")
    demo.add_argument("--serve-only", action="store_true",
                      help="only serve the demo site and its scripted model, printing their addresses, until Ctrl-C")
    demo.add_argument("--port", type=int, default=D.DEMO_PORT, metavar="N",
                      help=f"with --serve-only: the site on port N, the model on N+1 (default {D.DEMO_PORT}, so a "
                           "recipe recorded on it reruns at the same address; 0: any free ports)")
    demo.add_argument("--redesigned", action="store_true",
                      help="with --serve-only: the site after a redesign (nobody signed in, the dark-mode switch "
                           "behind an Appearance button), for a recipe recorded on the demo to heal on")
    add_browser_flags(demo)
    add_run_flags(demo)

    resume = sub.add_parser("resume", help="continue an interrupted session from its last finished step")
    resume.add_argument("session", metavar="ID", help="the session (goalbot sessions lists them)")
    add_model_flags(resume)
    add_browser_flags(resume)
    add_person_flags(resume)
    resume.add_argument("--ask", action="store_true",
                        help="ask to approve its plans, though the run was started with --yes")
    add_secret_flags(resume)

    attach = sub.add_parser("attach", help="open the dashboard on a session running in another process")
    attach.add_argument("session", metavar="ID", nargs="?", help="default: the latest running session")

    replay = sub.add_parser("replay", help="redraw a stored session in the dashboard, step by step")
    replay.add_argument("session", metavar="ID", nargs="?", help="default: the latest session")

    report = sub.add_parser("report", help="print a session's Markdown report")
    report.add_argument("session", metavar="ID", nargs="?", help="default: the latest session")
    report.add_argument("--json", action="store_true", help="one JSON document: the session, its status and report")
    report.add_argument("--pictures", type=Path, metavar="DIR",
                        help="write the screens of the moments that mattered (each GO asked for, the first failure, "
                             "the end) into DIR, and DIR/report.md with them drawn")

    sessions = sub.add_parser("sessions", help="list stored sessions")
    sessions.add_argument("--status", choices=[status.value for status in RunStatus],
                          help="only sessions that stand so")
    sessions.add_argument("--limit", type=int, default=30, metavar="N", help="how many, newest first (default 30)")
    sessions.add_argument("--plain", action="store_true", help="print the list, even in a terminal")
    sessions.add_argument("--json", action="store_true", help="the sessions as one JSON array")
    sessions.add_argument("--export-dir", type=Path, metavar="DIR",
                          help="where the sessions screen writes exports (default: here)")

    tail = sub.add_parser("tail", help="print stored events; -f to follow a running session")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.add_argument("--session", metavar="ID", help="only this session")
    tail.add_argument("-n", "--lines", type=int, default=40, help="how many past events (default 40)")

    stats = sub.add_parser("stats", help="operating metrics over stored runs, and whether the service levels are met")
    stats.add_argument("--recipe", metavar="NAME", help="only this recipe's reruns")
    stats.add_argument("--since", metavar="YYYY-MM-DD", help="only runs started on or after this day")
    stats.add_argument("--batch", metavar="BATCH", help="only this batch's jobs (goalbot batch)")
    stats.add_argument("--json", action="store_true", help="the figures as one JSON document")

    doctor = sub.add_parser("doctor", help="check the browser, the store, the display and the model endpoint")
    doctor.add_argument("--json", action="store_true", help="one JSON document: each check, its level and words")
    add_model_flags(doctor)
    add_browser_flags(doctor)

    add_observe_parser(sub)
    add_recipe_parsers(sub)
    add_mcp_parser(sub)
    add_batch_parser(sub)
    add_worker_parser(sub)
    add_trace_parser(sub)
    add_tune_parser(sub)
    add_eval_parser(sub)
    add_profile_parser(sub)
    add_completion_parser(sub)
    return finish(parser)


def cmd_completion(args: argparse.Namespace, _settings: Settings, _db_path: Path) -> int:
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0


def add_recipe_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    recipe = sub.add_parser("recipe", help="keep a session as a recipe, and manage recipes")
    actions = recipe.add_subparsers(dest="recipe_command", metavar="ACTION", required=True)
    save = actions.add_parser("save", help="keep a session that reached its goal as a recipe")
    save.add_argument("session", metavar="SESSION", help="a session that reached its goal")
    save.add_argument("name", metavar="NAME", help="the recipe's name (letters, digits, - and _)")
    add_recipe_flags(save, saving=False)
    actions.add_parser("list", help="the recipes in the store").add_argument(
        "--json", action="store_true", help="the recipes as one JSON array")
    for verb, text in (("show", "a recipe's steps in plain words"), ("delete", "delete every version of a recipe")):
        command = actions.add_parser(verb, help=text)
        command.add_argument("name", metavar="NAME", help="the recipe")
        if verb == "show":
            command.add_argument("--version", type=int, metavar="N", help="default: the latest")
            command.add_argument("--json", action="store_true", help="the recipe as JSON")

    export = actions.add_parser("export", help="write a recipe as a folder of JSON files, or as a Playwright script")
    export.add_argument("name", metavar="NAME", help="the recipe")
    export.add_argument("folder", metavar="DIR|FILE", type=Path,
                        help="where to write it: a folder (made if missing); with --as playwright, a .py file")
    export.add_argument("--as", dest="export_as", choices=("folder", "playwright"), default="folder",
                        help="playwright: one standalone Python file that needs only Playwright (default: folder)")
    export.add_argument("--version", type=int, metavar="N", help="default: the latest")
    actions.add_parser("import", help="keep a recipe folder as the next version of its name").add_argument(
        "folder", metavar="DIR", type=Path, help="a folder goalbot recipe export wrote")
    diff = actions.add_parser("diff", help="what changed between two versions of a recipe")
    diff.add_argument("name", metavar="NAME", help="the recipe")
    diff.add_argument("old", metavar="OLD", type=int, help="a version")
    diff.add_argument("new", metavar="NEW", type=int, help="a later version")
    block = actions.add_parser("block", help="make steps of a recipe into a block other recipes can run",
                               description="goalbot recipe block NAME --steps 1-2 --as login | --use login")
    block.add_argument("name", metavar="NAME", help="the recipe whose steps become one block step")
    block.add_argument("--steps", required=True, metavar="A[-B]", help="the steps, by their numbers in recipe show")
    made = block.add_mutually_exclusive_group(required=True)
    made.add_argument("--as", dest="block_as", metavar="BLOCK", help="keep those steps as a new recipe BLOCK")
    made.add_argument("--use", metavar="BLOCK", help="run the stored recipe BLOCK in their place")
    block.add_argument("--pin", action="store_true", help="run the block's version of today, not its latest")
    loop = actions.add_parser("loop", help="make steps that acted on each record of a list into a loop over it",
                              description="goalbot recipe loop NAME --over orders --steps 2")
    loop.add_argument("name", metavar="NAME", help="the recipe")
    loop.add_argument("--over", required=True, metavar="KEY", help="the list an earlier extract kept (KEY or KEY.path)")
    loop.add_argument("--steps", required=True, metavar="A[-B]", help="the steps that went through its records")
    loop.add_argument("--each", type=int, metavar="N",
                      help="actions per record (default: the steps' actions over the records recorded)")

    rerun = sub.add_parser("rerun", help="run a recipe again, without a model")
    rerun.add_argument("name", metavar="NAME", help="the recipe (goalbot recipe list)")
    rerun.add_argument("--version", type=int, metavar="N", help="default: the latest")
    rerun.add_argument("--url", help="start here instead of the recorded page")
    add_recipe_flags(rerun, saving=False)
    add_model_flags(rerun, roles=("patcher",))  # a patch when evidence is not enough; an unchanged site needs none
    add_authoring_flag(rerun)
    add_browser_flags(rerun)
    add_run_flags(rerun)
    add_result_flags(rerun, schema=False)


def add_batch_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub.add_parser("skill", help="print the skill file a coding agent reads to use goalbot from its shell (--json)")
    batch = sub.add_parser("batch", help="run many goals or recipe reruns, unattended",
                           description="goalbot batch JOBS.jsonl | goalbot batch status BATCH | "
                                       "goalbot batch resume BATCH")
    batch.add_argument("what", metavar="JOBS.jsonl|status|resume",
                       help='a file of jobs, one per line: {"goal", "url"?, "vars"?} or {"recipe", "vars"?}')
    batch.add_argument("batch_id", nargs="?", metavar="BATCH", help="with status or resume: the batch")
    batch.add_argument("--workers", type=int, default=2, help="jobs at once on this machine (default 2)")
    batch.add_argument("--json", action="store_true",
                       help="one JSON line per job as it ends; with status, one JSON document")
    batch.add_argument("--broker", metavar="redis://HOST:PORT/DB",
                       help="send the jobs to Celery workers (goalbot worker) through this Redis; every "
                            "session still lands in this store, live (needs GOALBOT_CLUSTER_KEY)")
    batch.add_argument("--ask", action="store_true",
                       help="a risky action waits for GO through goalbot attach (else it is refused, as with "
                            "run --yes)")
    batch.add_argument("--secrets-file", type=Path, metavar="FILE",
                       help="secrets (NAME=VALUE lines) the jobs may type; with --broker, each worker's own")
    batch.add_argument("--trace", choices=("failed", "always"), default="off",
                       help="keep a Playwright trace of a job that does not end well, or of every job (with DOM "
                            "snapshots); none by default: recording one costs a short job a sixth of its time")
    add_model_flags(batch)
    add_settings(batch.add_argument_group("pace per site, kept across every job of the batch"),
                 "min_interval_s", "burst", "clicks_per_minute")
    add_settings(batch.add_argument_group("where pages may go"), "allow_domain", "allow_scheme")


def _not_utf8(args: argparse.Namespace) -> str | None:
    """The first argument holding bytes that are not UTF-8 (Python keeps them as lone surrogates)."""
    for name, value in vars(args).items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, (str, Path)) and clean_text(str(text)) != str(text):
                return name
    return None


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    finally:
        discard_driver()  # one spawned early that no run took: a refusal, a usage error, --help


def _run(argv: list[str] | None) -> int:
    args = parse(build_parser(), argv)
    if args.command is None and not has_terminal():
        build_parser().print_help()
        return 0
    bad = _not_utf8(args)
    if bad is not None:
        return fail(f"the {bad.replace('_', '-')} argument is not valid UTF-8 text")
    flags = {k: v for k, v in vars(args).items() if v is not None}
    try:
        settings = load_settings(flags)
    except ConfigError as exc:
        return fail(str(exc))
    db_path = (settings.db or default_path()).expanduser()  # GOALBOT_DB="~/…" is not expanded by a shell
    settle_driver(args, settings.operator)
    try:
        return _handler(args.command or "dashboard")(args, settings, db_path)
    except StoreError as exc:
        return fail(str(exc))
    except sqlite3.Error as exc:  # a store damaged past what opening it could tell
        return fail(f"cannot read the store {db_path}: {exc}")
    except KeyboardInterrupt:
        return 130

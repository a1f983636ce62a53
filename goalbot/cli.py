"""The `goalbot` command: the one place that wires agents, operators, store and dashboard."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Callable

from goalbot import eventfmt, observe_cli
from goalbot.config import ConfigError, Settings, load_settings
from goalbot.events import Event, clean_text
from goalbot.model_flags import add_model_flags
from goalbot.run_flags import (
    add_browser_flags, add_operator_flags, add_person_flags, add_run_flags, browser_options,
)
from goalbot.dashboard_cli import add_image_flag, cmd_attach, cmd_dashboard, cmd_replay, cmd_sessions_screen
from goalbot.running import cmd_demo, cmd_resume, cmd_run, fail, has_terminal, store_report
from storage import queries
from storage.db import StoreError, connect, default_path

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goalbot", description="Reach a goal in a real browser: plan, approve, act, validate."
    )
    parser.add_argument("--db", type=Path, help="SQLite store (env GOALBOT_DB)")
    add_image_flag(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="reach a goal")
    run.add_argument("goal")
    run.add_argument("--url", help="page to start from")
    add_model_flags(run)
    add_browser_flags(run)
    add_operator_flags(run)
    add_run_flags(run)
    add_image_flag(run)

    demo = sub.add_parser("demo", help="watch goalbot sign in and turn on dark mode on a bundled site")
    add_browser_flags(demo)
    add_run_flags(demo)
    add_image_flag(demo)

    resume = sub.add_parser("resume", help="continue an interrupted session from its last finished step")
    resume.add_argument("session", metavar="ID")
    add_model_flags(resume)
    add_browser_flags(resume)
    add_person_flags(resume)
    resume.add_argument("--secret", action="append", metavar="NAME=VALUE", help="the run's secrets, again")
    resume.add_argument("--secrets-file", type=Path, metavar="FILE")
    add_image_flag(resume)

    attach = sub.add_parser("attach", help="open the dashboard on a session running in another process")
    attach.add_argument("session", metavar="ID", nargs="?", help="default: the latest running session")
    add_image_flag(attach)

    replay = sub.add_parser("replay", help="redraw a stored session in the dashboard, step by step")
    replay.add_argument("session", metavar="ID", nargs="?", help="default: the latest session")
    add_image_flag(replay)

    report = sub.add_parser("report", help="print a session's Markdown report")
    report.add_argument("session", metavar="ID", nargs="?", help="default: the latest session")

    sessions = sub.add_parser("sessions", help="list stored sessions")
    sessions.add_argument("--status", choices=["running", "ok", "failed", "cancelled", "interrupted"])
    sessions.add_argument("--limit", type=int, default=30)
    sessions.add_argument("--plain", action="store_true", help="print the list, even in a terminal")
    sessions.add_argument("--export-dir", type=Path, metavar="DIR",
                          help="where the sessions screen writes exports (default: here)")
    add_image_flag(sessions)

    tail = sub.add_parser("tail", help="print stored events; -f to follow a running session")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.add_argument("--session", help="only this session")
    tail.add_argument("-n", "--lines", type=int, default=40, help="how many past events (default 40)")

    sub.add_parser("doctor", help="check the browser, the store and the model settings")

    observe = observe_cli.add_parser(sub)
    add_browser_flags(observe)
    return parser


def _not_utf8(args: argparse.Namespace) -> str | None:
    """The first argument holding bytes that are not UTF-8 (Python keeps them as lone surrogates)."""
    for name, value in vars(args).items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, (str, Path)) and clean_text(str(text)) != str(text):
                return name
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
    db_path = settings.db or default_path()
    handlers: dict[str, Callable[[argparse.Namespace, Settings, Path], int]] = {
        "dashboard": cmd_dashboard, "attach": cmd_attach, "replay": cmd_replay,
        "run": cmd_run, "demo": cmd_demo, "resume": cmd_resume, "report": cmd_report,
        "sessions": cmd_sessions, "tail": cmd_tail, "doctor": cmd_doctor,
        "observe": lambda a, s, _db: observe_cli.run(a, browser_options(a, s)),
    }
    try:
        return handlers[args.command or "dashboard"](args, settings, db_path)
    except StoreError as exc:
        return fail(str(exc))
    except sqlite3.Error as exc:  # a store damaged past what opening it could tell
        return fail(f"cannot read the store {db_path}: {exc}")
    except KeyboardInterrupt:
        return 130


# -- reading the store ------------------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if has_terminal() and not args.plain:
        return cmd_sessions_screen(args, settings, db_path)
    db = connect(db_path, create=False)
    rows = queries.list_sessions(db, limit=args.limit, status=args.status)
    if not rows:
        print("no sessions stored yet")
        return 0
    print(f"{'SESSION':<22} {'STATUS':<11} {'STEPS':>5} {'CALLS':>5} {'TOKENS':>7} {'COST':>8}  GOAL")
    for row in rows:
        tokens = (row["tokens_in"] or 0) + (row["tokens_out"] or 0)
        cost = "–" if row.get("cost_usd") is None else f"${row['cost_usd']:.4f}"
        print(f"{row['id']:<22} {row['status']:<11} {row['steps']:>5} {row['model_calls']:>5} "
              f"{tokens:>7} {cost:>8}  {row['goal'][:60]}")
    return 0


def cmd_report(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    db = connect(db_path, create=False)
    try:
        session_id = args.session or next(iter(queries.list_sessions(db, limit=1)), {}).get("id")
        row = queries.session_row(db, session_id) if session_id else None
    finally:
        db.close()
    if row is None:
        return fail(f"no session {args.session} in {db_path}" if args.session else "no sessions stored yet")
    markdown = row.get("report") if row["status"] != "running" else None
    print(markdown or store_report(db_path, row["id"]) or "", end="")
    return 0


def cmd_tail(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    db = connect(db_path, create=args.follow)  # following may start before the first run
    render: Callable[[Event], str] = eventfmt.json_line if args.json else eventfmt.line
    rows = queries.recent_events(db, args.lines, args.session)
    last = rows[-1][0] if rows else queries.last_event_id(db)
    if not rows and not args.follow:
        print("no events stored yet", file=sys.stderr)
    for _, event in rows:
        print(render(event), flush=True)
    while args.follow:
        time.sleep(0.25)
        for last, event in queries.events_after(db, last, args.session):
            print(render(event), flush=True)
    return 0


def cmd_doctor(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.operators.browser_locate import BrowserNotFound, find_browser, playwright_chromium

    problems = 0
    try:
        choice = find_browser(settings.browser_path)
        if choice.path is None and playwright_chromium() is None:
            raise BrowserNotFound("no Chromium: apt-get install chromium, or playwright install chromium")
        print(f"ok    browser: {choice.describe()}")
    except BrowserNotFound as exc:
        problems += 1
        print(f"FAIL  browser: {exc}")
    try:
        connect(db_path).close()
        print(f"ok    store: {db_path}")
    except StoreError as exc:
        problems += 1
        print(f"FAIL  store: {exc}")
    key = "set" if settings.api_key.get_secret_value() else "not set"
    print(f"info  model: {settings.model} at {settings.base_url} (API key {key})")
    print(f"info  display: {os.environ.get('DISPLAY') or 'none (the browser runs headless)'}")
    return 1 if problems else 0


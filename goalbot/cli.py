"""The `goalbot` command: the one place that wires agents, operators, store and dashboard."""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib.resources import files
from pathlib import Path
from typing import Callable

from pydantic import SecretStr

from goalbot import eventfmt, observe_cli
from goalbot.printing import run_printing
from goalbot.agents.control import SessionControl
from goalbot.agents.secrets import SecretError, Secrets, parse_secret, read_secrets_file
from goalbot.agents.session import RunOptions, Session, SessionResult, Status
from goalbot.config import ConfigError, Settings, load_settings
from goalbot.events import Bus, Emitter, Event, new_session_id
from goalbot.llm.dialects import DialectError
from goalbot.model_flags import add_budget_flags, add_model_flags, build_client, dialects_of
from goalbot.operators.browser import BrowserOperator
from goalbot.operators.browser_launch import BrowserOptions
from storage import queries
from storage.db import StoreError, connect, default_path, mark_interrupted
from storage.recorder import Recorder

DEMO_GOAL = "sign in and turn on dark mode"


def _browser_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--headless", action="store_true", default=None,
                   help="no browser window (the default when there is no DISPLAY)")
    p.add_argument("--browser-path", help="Chromium to launch (env GOALBOT_BROWSER)")
    p.add_argument("--profile", metavar="NAME",
                   help="keep a persistent browser profile, so logins survive between runs")
    p.add_argument("--storage-state", type=Path, metavar="FILE",
                   help="cookies and local storage: read at start if FILE exists, written at the end")
    p.add_argument("--cdp-url", metavar="URL",
                   help="attach to a running Chromium (or a browser pool) over the DevTools protocol")


def browser_options(args: argparse.Namespace, settings: Settings) -> BrowserOptions:
    headless = bool(args.headless) or (sys.platform.startswith("linux") and not os.environ.get("DISPLAY"))
    return BrowserOptions(
        headless=headless, browser_path=settings.browser_path, profile=args.profile,
        storage_state=args.storage_state, cdp_url=args.cdp_url,
    )


def _run_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", "-y", action="store_true", help="approve the plan without asking")
    p.add_argument("--no-tui", action="store_true", help="print events instead of the dashboard")
    p.add_argument("--max-steps", type=int, help="stop after this many steps (default 20)")
    p.add_argument("--max-failures", type=int, help="stop after this many failures in a row (default 5)")
    add_budget_flags(p)
    p.add_argument("--secret", action="append", metavar="NAME=VALUE",
                   help="a secret the model can type as <secret:NAME> without seeing it (repeatable)")
    p.add_argument("--secrets-file", type=Path, metavar="FILE", help="secrets as NAME=VALUE lines")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goalbot", description="Reach a goal in a real browser: plan, approve, act, validate."
    )
    parser.add_argument("--db", type=Path, help="SQLite store (env GOALBOT_DB)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="reach a goal")
    run.add_argument("goal")
    run.add_argument("--url", help="page to start from")
    add_model_flags(run)
    _browser_flags(run)
    _run_flags(run)

    demo = sub.add_parser("demo", help="watch goalbot sign in and turn on dark mode on a bundled site")
    _browser_flags(demo)
    _run_flags(demo)

    sessions = sub.add_parser("sessions", help="list stored sessions")
    sessions.add_argument("--status", choices=["running", "ok", "failed", "cancelled", "interrupted"])
    sessions.add_argument("--limit", type=int, default=30)

    tail = sub.add_parser("tail", help="print stored events; -f to follow a running session")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.add_argument("--session", help="only this session")
    tail.add_argument("-n", "--lines", type=int, default=40, help="how many past events (default 40)")

    sub.add_parser("doctor", help="check the browser, the store and the model settings")

    observe = observe_cli.add_parser(sub)
    _browser_flags(observe)
    return parser


def _fail(message: str) -> int:
    print(f"goalbot: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help()
        return 0
    flags = {k: v for k, v in vars(args).items() if v is not None}
    try:
        settings = load_settings(flags)
    except ConfigError as exc:
        return _fail(str(exc))
    db_path = settings.db or default_path()
    handlers: dict[str, Callable[[argparse.Namespace, Settings, Path], int]] = {
        "run": cmd_run, "demo": cmd_demo, "sessions": cmd_sessions, "tail": cmd_tail,
        "doctor": cmd_doctor,
        "observe": lambda a, s, _db: observe_cli.run(a, browser_options(a, s)),
    }
    try:
        return handlers[args.command](args, settings, db_path)
    except StoreError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


# -- running a goal ---------------------------------------------------------------------------


def _has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_run(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    return run_goal(args, settings, db_path, args.goal, args.url)


def cmd_demo(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.demo.site import DemoSite
    from goalbot.scripted.server import Script, ScriptedModelServer

    script = Script.load(str(files("goalbot.demo").joinpath("script.json")))
    if not _has_terminal():
        args.yes = True  # nobody can press a key here, and the demo must still show itself
    with DemoSite() as site, ScriptedModelServer(script) as model:
        print(f"goalbot demo: site {site.url}, scripted model {model.base_url}", flush=True)
        demo_settings = settings.model_copy(
            update={"base_url": model.base_url, "model": "scripted-demo", "api_key": SecretStr("")}
        )
        code = run_goal(args, demo_settings, db_path, DEMO_GOAL, f"{site.url}/login")
        print(f"goalbot demo: the site's own record says {site.state.snapshot()}")
        return code


def run_goal(
    args: argparse.Namespace, settings: Settings, db_path: Path, goal: str, url: str | None
) -> int:
    use_tui = not args.no_tui
    if use_tui and not _has_terminal():
        print("goalbot: no terminal for the dashboard; printing events instead", file=sys.stderr)
        use_tui = False
    if not use_tui and not args.yes and not sys.stdin.isatty():
        return _fail("nobody can approve the plan here: pass --yes, or run in a terminal")
    try:
        dialects = dialects_of(settings)
        secrets = _secrets(args)
    except (DialectError, SecretError) as exc:
        return _fail(str(exc))
    recorder = Recorder(db_path)
    for session_id in mark_interrupted(recorder.db):
        print(f"goalbot: session {session_id} was cut off; marked interrupted", file=sys.stderr)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, new_session_id())
    control = SessionControl(auto_approve=args.yes, can_ask=use_tui or sys.stdin.isatty())
    client = build_client(settings, emitter)
    options = RunOptions(goal=goal, url=url, max_steps=settings.max_steps,
                         max_failures=settings.max_failures, vision=settings.vision,
                         coords=settings.coords, dialects=dialects)
    operator = BrowserOperator(browser_options(args, settings))
    session = Session(options, operator, client, emitter, control, secrets)
    try:
        if use_tui:
            result = _run_dashboard(bus, session, control, options)
        else:
            result = run_printing(bus, session, control)
    finally:
        recorder.close()
    if result is None:
        return 1
    print(f"goalbot: session {emitter.session_id} {result.status.value}: {result.reason}", file=sys.stderr)
    if result.answer:
        print(result.answer)
    return 0 if result.status is Status.OK else 1


def _secrets(args: argparse.Namespace) -> Secrets:
    values = read_secrets_file(args.secrets_file) if args.secrets_file else {}
    values.update(parse_secret(text) for text in args.secret or [])
    return Secrets(values)


def _run_dashboard(bus: Bus, session: Session, control: SessionControl, options: RunOptions) -> SessionResult | None:
    from tui.app import GoalbotApp
    from tui.images import prepare_images

    prepare_images()  # must happen before Textual owns the terminal
    app = GoalbotApp(bus, session, control, options)
    app.run()
    return app.result


# -- reading the store ------------------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
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


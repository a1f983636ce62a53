"""Starting a run (`run`, `demo`) or continuing one that was cut off (`resume`): wiring the agents,
the browser, the store and the dashboard or the printer together."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, SecretStr

from goalbot import report
from goalbot.agents.control import SessionControl
from goalbot.attach_inbox import CommandInbox
from goalbot.agents.domains import Domains, SchemeError
from goalbot.agents.risk import js_patterns
from goalbot.agents.progress import RunState
from goalbot.agents.replaying import state_from_events
from goalbot.agents.secrets import SecretError, Secrets, parse_secret, read_secrets_file
from goalbot.agents.session import RunOptions, Session, Status
from goalbot.config import Settings
from goalbot.events import Bus, Emitter, new_session_id
from goalbot.llm.dialects import DialectError
from goalbot.model_flags import build_client, dialects_of
from goalbot.operators.base import Operator, OperatorError
from goalbot.operators import desktop_read
from goalbot.operators.desktop_screen import check_display
from goalbot.operators.browser import BrowserOperator
from goalbot.operators.browser_locate import BrowserNotFound, find_browser
from goalbot.eventfmt import printable
from goalbot.printing import run_printing
from goalbot.run_flags import browser_options, run_options
from storage import queries
from storage.db import StoreError, connect, mark_interrupted
from storage.recorder import Recorder

DEMO_GOAL = "sign in and turn on dark mode"


class ResumePoint(BaseModel):
    """Where a cut-off session takes up again."""

    session_id: str
    state: RunState
    last_seq: int
    last_artifact: int
    start_url: str | None  # secrets stay with the host the run first started on


def fail(message: str) -> int:
    print(f"goalbot: {message}", file=sys.stderr)
    return 2


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_run(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if not args.goal.strip():
        return fail("the goal is empty: say what to reach, e.g. goalbot run \"turn on dark mode\" --url …")
    try:
        options = run_options(settings, args.goal, args.url, dialects_of(settings))
    except DialectError as exc:
        return fail(str(exc))
    return run_goal(args, settings, db_path, options)


def cmd_demo(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.demo.site import DemoSite
    from goalbot.scripted.server import Script, ScriptedModelServer

    script = Script.load(str(files("goalbot.demo").joinpath("script.json")))
    if not has_terminal():
        args.yes = True  # nobody can press a key here, and the demo must still show itself
    with DemoSite() as site, ScriptedModelServer(script) as model:
        print(f"goalbot demo: site {site.url}, scripted model {model.base_url}", flush=True)
        demo_settings = settings.model_copy(
            update={"base_url": model.base_url, "model": "scripted-demo", "api_key": SecretStr("")}
        )
        options = run_options(demo_settings, DEMO_GOAL, f"{site.url}/login", {})
        code = run_goal(args, demo_settings, db_path, options)
        print(f"goalbot demo: the site's own record says {site.state.snapshot()}")
        return code


def cmd_resume(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Continues a session that was cut off, in the same session, from its last finished step."""
    db = connect(db_path, create=False)
    mark_interrupted(db)
    row = queries.session_row(db, args.session)
    if row is None:
        db.close()
        return fail(f"no session {args.session} in {db_path} (see goalbot sessions)")
    if row["status"] == "running":
        db.close()
        return fail(f"session {args.session} is running in another process (pid {row['pid']} on "
                    f"{row['host']}): nothing to resume")
    if row["status"] != "interrupted":
        db.close()
        return fail(f"session {args.session} is {row['status']}, not interrupted: nothing to resume")
    if not queries.claim_for_resume(db, args.session):  # one process at most takes it up again
        db.close()
        return fail(f"session {args.session} is being resumed by another process")
    events = queries.session_events(db, args.session)
    last_artifact = queries.last_artifact_number(db, args.session)
    db.close()
    start = events[0].data if events else {}
    try:
        options = RunOptions.model_validate({  # at the page it was on when it was cut off
            **start.get("options", {}), "goal": row["goal"], "url": queries.last_url(events) or row["url"],
        })
        # The flags given now win for what the person decides (say, --yes, --allow-risky).
        if args.allow_risky:
            options.allow_risky = True
        if args.approval_timeout_s:
            options.approval_timeout_s = args.approval_timeout_s
    except ValueError as exc:
        _give_back(db_path, args.session)
        return fail(f"session {args.session} cannot be resumed: {exc}")
    point = ResumePoint(session_id=args.session, state=state_from_events(events),
                        last_seq=events[-1].seq if events else 0, last_artifact=last_artifact, start_url=row["url"])
    # The key is never stored: it comes from the flags or the environment again; the endpoint and
    # the model are the session's own unless the flags name others.
    settings = settings.model_copy(update={
        "base_url": args.base_url or row["base_url"] or settings.base_url,
        "model": args.model or row["model"] or settings.model,
    })
    code = run_goal(args, settings, db_path, options, resume=point)
    if code == 2:  # it never started: another try may take it up
        _give_back(db_path, args.session)
    return code


def _give_back(db_path: Path, session_id: str) -> None:
    try:
        db = connect(db_path)
    except StoreError:
        return
    try:
        queries.release_claim(db, session_id)
    finally:
        db.close()


@dataclass
class Wiring:
    """One run, wired: its bus feeds the store, and its inbox takes what `goalbot attach` says."""

    bus: Bus
    session: Session
    control: SessionControl
    recorder: Recorder
    inbox: CommandInbox

    @property
    def session_id(self) -> str:
        return self.session.emitter.session_id

    def close(self, db_path: Path) -> None:
        self.inbox.close()
        self.recorder.close()
        if self.recorder.failure is None:
            store_report(db_path, self.session_id)


class WiringError(Exception):
    """The run cannot start; the message says why, for the person."""


def wire_run(
    args: argparse.Namespace, settings: Settings, db_path: Path, options: RunOptions,
    can_ask: bool, resume: ResumePoint | None = None,
) -> Wiring:
    if settings.operator == "desktop":
        try:
            check_display()
        except OperatorError as exc:
            raise WiringError(str(exc)) from exc
        desktop_read.warn_if_missing()
    else:
        check_browser_flags(args, settings)
    try:
        domains = Domains(options.allow_domains, resume.start_url if resume else options.url, options.allow_schemes)
    except SchemeError as exc:
        raise WiringError(str(exc)) from exc
    if options.url and not domains.allows_scheme(options.url):
        raise WiringError(f"the start page {options.url} is not a web page: only http(s) addresses are "
                          "opened (--allow-scheme to allow another)")
    if options.url and not domains.allows(options.url):
        raise WiringError(f"the start page {options.url} is outside --allow-domain ({domains.describe()})")
    try:
        secrets = _secrets(args)
    except SecretError as exc:
        raise WiringError(str(exc)) from exc
    control = SessionControl(auto_approve=bool(getattr(args, "yes", False)), can_ask=can_ask)
    # A store that stops taking events stops the run: what is not stored did not happen.
    recorder = Recorder(db_path, on_failure=lambda _why: control.stop())
    for session_id in mark_interrupted(recorder.db):
        print(f"goalbot: session {session_id} was cut off; marked interrupted (goalbot resume {session_id})",
              file=sys.stderr)
    bus = Bus()
    recorder.attach(bus)
    if resume is not None:
        emitter = Emitter(bus, resume.session_id, start_seq=resume.last_seq, start_artifact=resume.last_artifact)
    else:
        emitter = Emitter(bus, new_session_id())
    session = Session(options, _operator(args, settings, domains), build_client(settings, emitter), emitter,
                      control, secrets, domains, resume=resume.state if resume else None)
    inbox = CommandInbox(db_path, emitter.session_id, control,
                         said=lambda text: print(f"goalbot: {text}", file=sys.stderr))
    inbox.start()
    return Wiring(bus=bus, session=session, control=control, recorder=recorder, inbox=inbox)


def run_goal(
    args: argparse.Namespace, settings: Settings, db_path: Path, options: RunOptions,
    resume: ResumePoint | None = None,
) -> int:
    use_tui = not args.no_tui
    if use_tui and not has_terminal():
        print("goalbot: no terminal for the dashboard; printing events instead", file=sys.stderr)
        use_tui = False
    await_attach = bool(getattr(args, "await_attach", False))
    if not use_tui and not args.yes and not sys.stdin.isatty() and not await_attach:
        return fail("nobody can approve the plan here: pass --yes, or --await-attach and approve it "
                    "with goalbot attach, or run in a terminal")
    try:
        wiring = wire_run(args, settings, db_path, options, use_tui or sys.stdin.isatty() or await_attach, resume)
    except WiringError as exc:
        return fail(str(exc))
    if await_attach:
        print(f"goalbot: session {wiring.session_id} waits for goalbot attach {wiring.session_id}",
              file=sys.stderr, flush=True)
    try:
        if use_tui:
            from goalbot.dashboard_cli import run_dashboard

            result = run_dashboard(wiring, db_path, settings)
        else:
            result = run_printing(wiring.bus, wiring.session, wiring.control)
    finally:
        wiring.close(db_path)
    if wiring.recorder.failure is not None:
        return fail(f"{wiring.recorder.failure} (session {wiring.session_id})")
    if result is None:
        return 1
    print(f"goalbot: session {wiring.session_id} {result.status.value}: {printable(result.reason)} "
          f"(goalbot report {wiring.session_id})", file=sys.stderr)
    if result.answer:
        print(printable(result.answer))
    if result.could_not_start:
        return 2
    return 0 if result.status is Status.OK else 1


def check_browser_flags(args: argparse.Namespace, settings: Settings) -> None:
    """A browser that cannot be there is a bad flag, said before anything starts."""
    cdp_url = getattr(args, "cdp_url", None)
    if cdp_url:
        parts = urlsplit(cdp_url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            raise WiringError(f"--cdp-url {cdp_url!r} is not an address: give http://host:port (or ws://…) "
                              "of a Chromium started with --remote-debugging-port")
        return
    try:
        find_browser(settings.browser_path)
    except BrowserNotFound as exc:
        raise WiringError(f"{exc}; pass an existing --browser-path (or set GOALBOT_BROWSER)") from exc


def _operator(args: argparse.Namespace, settings: Settings, domains: Domains) -> Operator:
    if settings.operator == "desktop":
        from goalbot.operators.desktop import DesktopOperator

        return DesktopOperator(settings.monitor, settings.grid)
    return BrowserOperator(browser_options(args, settings), allows=domains.allows, held_words=js_patterns())


def store_report(db_path: Path, session_id: str) -> str | None:
    """Writes the session's Markdown report next to it; None when it cannot be read."""
    try:
        db = connect(db_path)
    except StoreError as exc:
        print(f"goalbot: the report was not written: {exc}", file=sys.stderr)
        return None
    try:
        row = queries.session_row(db, session_id)
        if row is None:
            return None
        markdown = report.render(row, queries.session_events(db, session_id))
        try:
            queries.save_report(db, session_id, markdown)
        except sqlite3.Error as exc:  # a locked store keeps what it has; `goalbot report` retries
            print(f"goalbot: the report was not stored ({exc}); goalbot report {session_id} makes it",
                  file=sys.stderr)
        return markdown
    finally:
        db.close()


def _secrets(args: argparse.Namespace) -> Secrets:
    values = read_secrets_file(args.secrets_file) if getattr(args, "secrets_file", None) else {}
    values.update(parse_secret(text) for text in getattr(args, "secret", None) or [])
    return Secrets(values)

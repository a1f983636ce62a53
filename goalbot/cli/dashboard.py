"""The dashboard's commands: `goalbot` (type a goal), `goalbot attach`, `goalbot replay`,
`goalbot sessions` in a terminal; and the dashboard in front of `run`, `demo` and `resume`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goalbot.agents.session import SessionResult
from goalbot.cli.terminal import fail, has_terminal
from goalbot.operators.browser.early import run_loop
from goalbot.service.settings import ConfigError, Settings, remember_setting
from goalbot.service.runs import StartedRun
from storage import queries
from storage.db import connect, mark_interrupted, opened
from storage.rows import SessionRow

if TYPE_CHECKING:  # the dashboard (and textual-image) load only when a dashboard opens
    from tui.app import GoalbotApp

def app_for(settings: Settings, db_path: Path, **kwargs: Any) -> GoalbotApp:
    from tui.app import GoalbotApp
    from tui.images import prepare_images

    prepare_images(settings.images)  # must happen before Textual owns the terminal
    return GoalbotApp(db_path=db_path, theme=settings.theme, remember_theme=_remember_theme, **kwargs)


def _remember_theme(name: str) -> str | None:
    """Keeps the theme chosen in the palette for the next dashboard; says why it could not."""
    try:
        remember_setting("theme", name)
    except ConfigError as exc:
        return str(exc)
    return None


def run_dashboard(started: StartedRun, db_path: Path, settings: Settings, resumed: bool = False) -> SessionResult | None:
    from tui.screens.run import LiveRun

    history: list[Any] = []
    if resumed:  # read before the run writes again: what it did before it was cut off
        with opened(db_path, create=False) as db:
            history = queries.session_events(db, started.session_id)
    app = app_for(settings, db_path, live=LiveRun(started.bus, started.session, started.control, history=history))
    with run_loop() as runner:  # the loop the Playwright driver was spawned on, if it was
        app.run(loop=runner.get_loop())
    return app.result


def cmd_dashboard(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """`goalbot` alone: type a goal (a URL in it is where the browser starts), run it, type another."""
    if not has_terminal():
        return fail("the dashboard needs a terminal; see goalbot --help for the other commands")
    from tui.starting import goal_starter

    start = goal_starter(settings, db_path)
    app = app_for(settings, db_path, starter=start, history=_goals(db_path), opening="run")
    app.run()
    return 0


def cmd_sessions_screen(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    connect(db_path, create=False).close()  # says so when there is no store yet
    export_dir = Path(args.export_dir) if getattr(args, "export_dir", None) else Path.cwd()
    app_for(settings, db_path, opening="sessions", export_dir=export_dir, status=args.status).run()
    return 0


def stored_session(db_path: Path, wanted: str | None, latest_with_status: str | None = None) -> SessionRow | None:
    """The session asked for, else the latest one (with that status); None when there is none.
    Sessions whose process died are marked interrupted first, so a dead run is not attached to."""
    with opened(db_path, create=False) as db:
        mark_interrupted(db)
        session_id = wanted or queries.latest_session_id(db, status=latest_with_status)
        return queries.session_row(db, session_id) if session_id else None


def _goals(db_path: Path) -> list[str]:
    try:
        db = connect(db_path)
    except Exception:  # no history is no reason to refuse the dashboard
        return []
    try:
        return [row.goal for row in queries.list_sessions(db, limit=100)]
    finally:
        db.close()

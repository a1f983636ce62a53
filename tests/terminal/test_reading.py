"""Reading what happened: one severity for every view, so routine lines stay quiet and failures
stand out; `tail` and `report` drawn on a terminal and left plain in a pipe; a failed task's reason
in full, in a toast."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard_kit import until
from goalbot.events import Actor, Event, EventType
from goalbot.text.severity import Severity, severity
from kit import REPO, run_cli, store_with_sessions


def event(kind: EventType, **data: object) -> Event:
    return Event(session_id="s", seq=1, type=kind, actor=Actor.SYSTEM, data=data)


def test_pacing_is_routine_and_refusals_and_failures_are_not() -> None:
    assert severity(event(EventType.POLICY, policy="min_interval", message="waiting 0.5 s")) is Severity.ROUTINE
    assert severity(event(EventType.POLICY, policy="repeat_click", message="refused")) is Severity.WARNING
    assert severity(event(EventType.TASK_FAIL, reason="x")) is Severity.ERROR
    assert severity(event(EventType.TASK_OK, reason="x")) is Severity.SUCCESS


def on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What `goalbot ARGS` writes to a real pseudo-terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "goalbot", *args], stdin=follower, stdout=follower,
                               stderr=follower, cwd=REPO, env={**os.environ, "TERM": "xterm", **(env or {})})
    os.close(follower)
    written = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the command ended and closed the terminal
                break
            if not chunk:
                break
            written += chunk
        elif process.poll() is not None:
            break
    process.wait(30)
    os.close(leader)
    return written.decode(errors="replace")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "goalbot.db"
    store_with_sessions(db, count=1, events_each=2)
    return db


def test_tail_is_coloured_by_severity_on_a_terminal_only(store: Path) -> None:
    shown = on_a_terminal("--db", str(store), "tail")
    assert "\x1b[1;31m" in shown and "TASK_FAIL" in shown.split("\x1b[1;31m", 1)[1].split("\x1b[0m")[0]
    assert "\x1b[2m" in shown and "min_interval" in shown.split("\x1b[2m", 1)[1].split("\x1b[0m")[0]
    assert "\x1b[" not in on_a_terminal("--db", str(store), "tail", env={"NO_COLOR": "1"})
    piped = run_cli("--db", str(store), "tail")
    assert "TASK_FAIL" in piped.stdout and "\x1b[" not in piped.stdout


def test_report_is_drawn_on_a_terminal_and_markdown_in_a_pipe(store: Path) -> None:
    piped = run_cli("--db", str(store), "report").stdout
    assert piped.startswith("# ") and "\n## " in piped
    drawn = on_a_terminal("--db", str(store), "report")
    assert "\x1b[" in drawn and "\n## " not in drawn and "# " not in drawn.splitlines()[0]


async def test_a_failed_task_says_its_whole_reason_in_a_toast(tmp_path: Path) -> None:
    from tui.app import GoalbotApp

    db = tmp_path / "goalbot.db"
    store_with_sessions(db, count=1, events_each=1)
    app = GoalbotApp(db_path=db, session_id="s000", opening="attach")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("net::ERR_UNSAFE_PORT" in str(n.message) for n in app._notifications),
                    "the failure's toast")
        toast = next(n for n in app._notifications if "net::ERR_UNSAFE_PORT" in str(n.message))
        assert toast.severity == "error" and toast.title == "The task failed"


async def test_a_row_cut_at_the_panel_edge_is_read_whole_and_found_with_slash(model_server, db_path: Path,
                                                                               chromium: None) -> None:
    from dashboard_kit import GOAL, dashboard_app, on_top

    # Chromium refuses port 6000 (X11) whatever listens there: the reason is Chromium's own words.
    app, recorder = dashboard_app("http://127.0.0.1:6000/", GOAL, model_server({}), db_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            log = app.run_screen.query_one("#log")
            await until(pilot, lambda: app.result is not None and "TASK_FAIL" in log.plain()[-1], "the failure")
            width = log.scrollable_content_region.width
            assert "ERR_UNSAFE_PORT" not in "".join(s.text for s in log.render_line(log.cursor - int(log.scroll_y)))
            assert len(log.plain()[-1]) > width  # the reason is past the panel's edge

            await pilot.press("enter")  # the selected row, the newest, in full
            await until(pilot, lambda: on_top(app, "EventScreen"), "the event's detail")
            detail = str(app.screen.query_one("#event-summary").render())
            assert "net::ERR_UNSAFE_PORT" in detail and "TASK_FAIL" in str(app.screen.query_one("#event-title").render())
            await pilot.press("escape")
            await until(pilot, lambda: on_top(app, "RunScreen"), "the run screen again")

            await pilot.press("home")
            assert log.cursor == 0
            await pilot.press("slash")
            await until(pilot, lambda: on_top(app, "FindScreen"), "the find dialog")
            await pilot.press(*"unsafe_port", "enter")
            await until(pilot, lambda: on_top(app, "RunScreen"), "the find dialog to close")
            assert "ERR_UNSAFE_PORT" in log.plain()[log.cursor] and log.cursor > 0
            await pilot.press("slash")
            await until(pilot, lambda: on_top(app, "FindScreen"), "the find dialog, with the last search")
            await pilot.press("ctrl+u", *"no such words", "enter")
            await until(pilot, lambda: any("Not in the log" in str(n.message) for n in app._notifications),
                        "a search that finds nothing says so")
    finally:
        recorder.close()


async def test_enter_in_a_replay_opens_the_moment_shown(tmp_path: Path) -> None:
    from dashboard_kit import on_top
    from tui.app import GoalbotApp

    db = tmp_path / "goalbot.db"
    store_with_sessions(db, count=1, events_each=3)
    app = GoalbotApp(db_path=db, session_id="s000", opening="replay")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: on_top(app, "ReplayScreen") and app.screen.ready, "the replay")
        replay = app.screen
        await pilot.press("end", "left")  # the moment before the end: the last pacing line
        await pilot.press("enter")
        await until(pilot, lambda: on_top(app, "EventScreen"), "the event's detail")
        assert "waiting 2" in str(app.screen.query_one("#event-summary").render())
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is replay, "the replay again")

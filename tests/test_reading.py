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
from kit import REPO, run_cli
from test_unix_tool import store_with_sessions


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

"""Helpers for driving the dashboard with Textual's Pilot on real runs: the scripted model over
HTTP, Chromium, a SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from textual.pilot import Pilot
from textual.widgets import OptionList

from goalbot.agents.control import SessionControl
from goalbot.agents.session import RunOptions, Status
from goalbot.events import Bus, Event
from goalbot.llm.usage import Limits
from goalbot.operators.browser.operator import BrowserOperator
from goalbot.operators.browser.options import BrowserOptions
from storage.recorder import Recorder
from tui.app import GoalbotApp
from tui.screens.run import LiveRun

from kit import stored_session

GOAL = "sign in and turn on dark mode"


def dashboard_app(
    url: str, goal: str, model: Any, db_path: Path, control: SessionControl | None = None,
    limits: Limits | None = None,
) -> tuple[GoalbotApp, Recorder]:
    control = control or SessionControl()
    session, recorder = stored_session(db_path, RunOptions(goal=goal, url=url),
                                       BrowserOperator(BrowserOptions(headless=True)), model, control, limits)
    bus = session.emitter.bus
    app = GoalbotApp(db_path=db_path, live=LiveRun(bus, session, control))
    app.bus, app.control = bus, control  # type: ignore[attr-defined]  # for the tests' own checks
    return app, recorder


async def until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


async def ends_ok(pilot: Pilot[Any], app: GoalbotApp) -> None:
    """Waits for the run to end, which must be a success, and leaves the dashboard."""
    await until(pilot, lambda: app.result is not None, "the session to end")
    assert app.result is not None and app.result.status is Status.OK, app.result
    await pilot.press("q")


def text(app: GoalbotApp, selector: str) -> str:
    """What a widget of the run screen shows (a dialog may be on top of it)."""
    return str(app.run_screen.query_one(selector).render())


def screen_text(app: GoalbotApp, selector: str) -> str:
    """What a widget of the screen on top shows; an option list, one option a line."""
    widget = app.screen.query_one(selector)
    if isinstance(widget, OptionList):
        return "\n".join(str(option.prompt) for option in widget.options)
    return str(widget.render())


def on_top(app: GoalbotApp, name: str) -> bool:
    return type(app.screen).__name__ == name and app.screen.is_mounted


def log_rows(screen: Any) -> list[str]:
    return screen.query_one("#log").plain()


def starter(model: Any, db_path: Path, recorders: list[Recorder]) -> Callable[[str], LiveRun]:
    """What `goalbot` alone does with a typed goal: a URL in it is where the browser starts."""

    def start(goal: str) -> LiveRun:
        url = next(word for word in goal.split() if word.startswith("http"))
        app, recorder = dashboard_app(url, goal, model, db_path)
        recorders.append(recorder)
        assert app.run_screen._first[0] is not None
        return app.run_screen._first[0]

    return start


FIXTURES = Path(__file__).parent / "fixtures"


def store_fixture(db_path: Path, name: str, keep: int | None = None) -> str:
    """Stores a session a real run recorded (tests/fixtures; its first `keep` events: a run that
    is still waiting) through the recorder, as a run would; returns its id."""
    events = [Event.model_validate_json(line) for line in (FIXTURES / f"{name}.jsonl").read_text().splitlines()]
    recorder, bus = Recorder(db_path), Bus()
    recorder.attach(bus)
    for event in events[:keep]:
        bus.publish(event)
    recorder.close()
    return events[0].session_id

"""Snapshots of the main layouts (pytest-textual-snapshot), drawn from sessions that real runs
stored (tests/fixtures, made by make_fixtures.py). `pytest --snapshot-update` redraws them."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterator

import pytest

from dashboard_kit import store_fixture, until
from tui.app import GoalbotApp
from tui.images import prepare_images

SIZE = (150, 40)


@pytest.fixture(autouse=True)
def _fixed_clock_and_images() -> Iterator[None]:
    """Times are drawn in local time: pin the zone; pictures depend on the terminal: leave them out."""
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    prepare_images("none")
    yield
    if zone is None:
        os.environ.pop("TZ")
    else:
        os.environ["TZ"] = zone
    time.tzset()


def _waiting_for(screen_name: str):
    """Until the screen is on top and has read what it shows from the store."""
    async def run_before(pilot) -> None:
        await until(pilot, lambda: type(pilot.app.screen).__name__ == screen_name
                    and getattr(pilot.app.screen, "ready", True), screen_name)
        await pilot.pause()

    return run_before


def test_replay_of_the_demo(snap_compare, db_path: Path) -> None:
    session_id = store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting_for("ReplayScreen"))


def test_replay_in_the_middle_of_step_one(snap_compare, db_path: Path) -> None:
    session_id = store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    assert snap_compare(app, terminal_size=SIZE, press=["home", "n", "right", "right"],
                        run_before=_waiting_for("ReplayScreen"))


def test_plan_waiting_for_approval(snap_compare, db_path: Path) -> None:
    session_id = store_fixture(db_path, "demo", keep=5)
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting_for("PlanReviewScreen"))


def test_go_not_go_question(snap_compare, db_path: Path) -> None:
    session_id = store_fixture(db_path, "purchase", keep=9)
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting_for("ConsentScreen"))


def test_sessions(snap_compare, db_path: Path) -> None:
    store_fixture(db_path, "demo")
    store_fixture(db_path, "purchase")
    app = GoalbotApp(db_path=db_path, opening="sessions")
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting_for("SessionsScreen"))

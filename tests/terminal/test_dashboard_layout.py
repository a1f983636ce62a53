"""The dashboard at the sizes people have: 80×24 and narrower stack the panels and keep every
dialog on screen; the screen panel can be enlarged; a replay starts where its story starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard_kit import GOAL, on_top, store_fixture, until
from kit import demo_script, rows, run_goal
from tui.app import GoalbotApp
from tui.images import prepare_images


def inside(app: GoalbotApp, selector: str) -> bool:
    region, screen = app.screen.query_one(selector).region, app.screen.region
    return region.width > 0 and region.height > 0 and screen.contains_region(region)


def notes(app: GoalbotApp) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


@pytest.mark.parametrize("size", [(80, 24), (40, 20)])
async def test_a_small_terminal_stacks_the_panels_and_the_plan_dialog_fits(db_path: Path, size: tuple[int, int]) -> None:
    session_id = store_fixture(db_path, "demo", keep=5)  # a plan waiting for approval
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        await pilot.pause()
        assert inside(app, "#review-dialog")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.run_screen, "the run screen")
        await pilot.pause()
        board = app.run_screen.board
        assert board.has_class("narrow")
        plan, work, log = (app.run_screen.query_one(s).region for s in ("#plan", "#work", "#log"))
        assert plan.width == work.width == board.region.width  # the plan above the rest, full width
        assert plan.bottom <= log.y and log.height >= 3 and log.width >= min(36, board.region.width - 4)
        # The screen beside the log while there is room for both; a tiny terminal keeps the log.
        assert app.run_screen.query_one("#screenshot").display is (size[0] >= board.TINY)


async def test_the_screen_panel_is_enlarged_and_back(db_path: Path) -> None:
    prepare_images("halfcell")
    session_id = store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: on_top(app, "ReplayScreen") and app.screen.ready, "the replay")
        screen = app.screen
        await pilot.press("z")
        await pilot.pause()
        shot = screen.query_one("#screenshot")
        assert shot.display and shot.region.width == screen.query_one("#board").region.width
        assert not screen.query_one("#log").display
        await pilot.press("z")
        await pilot.pause()
        assert screen.query_one("#log").display and screen.query_one("#log").region.width > 0


async def test_a_replay_opens_at_its_start_and_home_shows_no_later_picture(site, model_server,
                                                                           db_path: Path) -> None:
    prepare_images("halfcell")
    run_goal(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)  # screenshots and all
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(app, "ReplayScreen") and app.screen.ready, "the replay")
        screen = app.screen
        assert 0 < screen.position < len(screen.events)  # the plan approved, nothing done yet
        assert screen.events[screen.position - 1].type.value == "PLAN_APPROVED"
        assert screen.board.state.step == 0
        await pilot.press("end")
        await until(pilot, lambda: screen.query("#screenshot-image"), "the last picture")
        await pilot.press("home")
        await pilot.pause()
        assert "before the start" in str(screen.query_one("#replay-head").render())
        assert not screen.query("#screenshot-image")  # not the final picture under "before the start"
        assert "no screenshot yet" in str(screen.query_one("#screenshot-caption").render())

        await pilot.press("g")
        await until(pilot, lambda: on_top(app, "JumpScreen"), "the jump box")
        assert "Jump to step (1–2)" in str(app.screen.query_one("Label").render())
        await pilot.press("9", "enter")
        await until(pilot, lambda: "There is no step 9 (steps 1–2)" in notes(app), "the out-of-range step said")


async def test_jumping_in_a_session_without_steps_is_said(db_path: Path) -> None:
    session_id = store_fixture(db_path, "demo", keep=3)
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: on_top(app, "ReplayScreen") and app.screen.ready, "the replay")
        await pilot.press("g")
        await until(pilot, lambda: "no steps to jump to" in notes(app), "no steps said")
        assert on_top(app, "ReplayScreen")


async def test_a_terminal_made_wider_after_the_start_gets_the_wide_layout(db_path: Path) -> None:
    """A terminal that reports 80 columns first and its real width a moment later (an xterm
    still opening its window, a tmux pane being resized) is drawn wide once it is wide."""
    prepare_images("halfcell")
    session_id = store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.resize_terminal(150, 45)  # while the replay is still being read
        await until(pilot, lambda: on_top(app, "ReplayScreen") and app.screen.ready, "the replay")
        board = app.screen.query_one("#board")
        await until(pilot, lambda: not board.has_class("narrow"), "the wide layout at 150 columns")
        plan, log = app.screen.query_one("#plan"), app.screen.query_one("#log")
        await until(pilot, lambda: plan.region.y == log.region.y, "the plan beside the log")

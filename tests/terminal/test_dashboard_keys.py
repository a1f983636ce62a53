"""The keys follow the state: the footer offers what means something now and only that; Esc goes
back and never leaves the app; quitting during a run asks first."""

from __future__ import annotations

import html
import re
from pathlib import Path

from kit import answer, call, demo_script, plan, rows, store_with_sessions
from dashboard_kit import GOAL, dashboard_app, on_top, store_fixture, until
from goalbot.agents.session import Status
from tui.app import GoalbotApp


def drawn_footer(app: GoalbotApp) -> str:
    """The footer's words as the terminal shows them (the last line of the screen)."""
    texts = [html.unescape(text) for text in re.findall(r">([^<>]*)</text>", app.export_screenshot())]
    last = max((n for n, text in enumerate(texts) if text == "\n"), default=-1)
    return " ".join(" ".join(texts[last + 1:]).split())


def offered(app: GoalbotApp) -> set[str]:
    """The footer's keys: the bindings shown and enabled on the screen on top."""
    return {b.binding.description for b in app.active_bindings.values() if b.enabled and b.binding.show}


async def test_esc_on_a_sessions_screen_opened_directly_stays_and_q_quits(db_path: Path) -> None:
    store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, opening="sessions")
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen") and app.screen.rows, "the sessions")
        assert "Back" not in offered(app) and "Sessions" not in offered(app) and "Quit" in offered(app)
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert app.is_running and on_top(app, "SessionsScreen")
        await pilot.press("slash")  # in the search, Esc goes back to the table
        await until(pilot, lambda: "Back" in offered(app), "Back offered in the search")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen.query_one("#sessions-table").has_focus, "the table again")
        assert app.is_running
        # The footer as drawn follows: the table's keys again, not the search's.
        await until(pilot, lambda: "Open" in drawn_footer(app) and "Back" not in drawn_footer(app),
                    "the table's keys in the footer")
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_esc_on_a_replay_opened_directly_goes_to_the_sessions(db_path: Path) -> None:
    session_id = store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: on_top(app, "ReplayScreen"), "the replay")
        await pilot.press("escape")
        await until(pilot, lambda: on_top(app, "SessionsScreen"), "the sessions, which the replay is one of")
        assert app.is_running


async def test_the_footer_follows_the_run_and_quitting_it_asks_first(site, model_server, db_path: Path) -> None:
    script = {"planner": [plan("Wait for the page")], "navigator": [answer(call("wait", seconds=60))]}
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(script), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            await pilot.press("escape")  # put off: the run screen offers the plan's keys
            await until(pilot, lambda: {"Approve", "Edit", "Reject"} <= offered(app), "the plan's keys")
            await pilot.press("a")
            await until(pilot, lambda: rows(db_path, "select 1 from events where type = 'ACT_START'"), "the wait")
            await until(pilot, lambda: {"Stop", "Pause"} <= offered(app), "the running keys")
            assert not {"Approve", "Edit", "Reject"} & offered(app)
            await pilot.press("a")  # nothing waits for approval: nothing happens
            await pilot.press("q")
            await until(pilot, lambda: on_top(app, "ConsentScreen"), "are you sure")
            await pilot.press("n")
            await until(pilot, lambda: app.screen is app.run_screen, "back to the run")
            assert app.result is None  # still running
            await pilot.press("q")
            await until(pilot, lambda: on_top(app, "ConsentScreen"), "are you sure, again")
            await pilot.press("y")
            await until(pilot, lambda: not app.is_running, "the app to quit once the run stopped")
        assert app.result is not None and app.result.status is Status.CANCELLED
    finally:
        recorder.close()
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"


async def test_the_delete_question_is_cancelled_with_esc(db_path: Path) -> None:
    store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path, opening="sessions")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen") and app.screen.rows, "the sessions")
        await pilot.press("d")
        await until(pilot, lambda: on_top(app, "ConsentScreen"), "the delete question")
        keys = str(app.screen.query_one("#consent-keys").render())
        assert "Esc cancel" in keys and "later" not in keys
        assert "Cancel" in offered(app) and "Decide later" not in offered(app)
        await pilot.press("escape")
        await until(pilot, lambda: on_top(app, "SessionsScreen"), "back, nothing deleted")
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 1


async def test_editing_a_step_keeps_its_text_and_the_plan_shows_what_changed(db_path: Path) -> None:
    from dashboard_kit import screen_text

    session_id = store_fixture(db_path, "demo", keep=5)  # a plan waiting for approval
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        await pilot.press("e")
        await until(pilot, lambda: app.screen.query_one("#review-input").has_focus, "the step's field")
        await pilot.press(*" now", "enter")  # typed after the step's text, not over it
        steps = screen_text(app, "#review-steps")
        assert "~ 1. Sign in with the demo account shown on the page now" in steps
        await pilot.press("down", "d")
        assert "(edited: 1 changed, 1 removed)" in screen_text(app, "#review-title")
        assert screen_text(app, "#review-removed") == "- Turn on the dark mode switch in the settings and save"


async def test_the_sessions_say_why_each_ended_and_offer_enter(tmp_path: Path) -> None:
    db = tmp_path / "goalbot.db"
    store_with_sessions(db, count=2, events_each=1)
    app = GoalbotApp(db_path=db, opening="sessions")
    async with app.run_test(size=(200, 20)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen") and len(app.screen.rows) == 2, "the sessions")
        table = app.screen.query_one("#sessions-table")
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[:5] == ["session", "status", "goal", "recipe", "why it ended"]
        assert str(table.get_row_at(0)[4]) == "net::ERR_UNSAFE_PORT"
        assert table.get_row_at(0)[1].style == "bold red"  # failed, in words and in red
        assert "Open" in offered(app)
        await pilot.press("enter")
        await until(pilot, lambda: on_top(app, "ReplayScreen"), "the session opened")


async def test_a_dialog_opens_with_its_keys_in_the_footer_not_a_blank_line() -> None:
    from tui.screens.plan_review import PlanReviewScreen

    app = GoalbotApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: on_top(app, "RunScreen"), "the run screen")
        await app.push_screen(PlanReviewScreen(["Open settings", "Turn on dark mode"]))
        # The first frame the dialog is drawn in, before any later refresh could fill the footer.
        shown = {str(key.description) for key in app.screen.query("FooterKey")}
        assert {"Quit", "Approve", "Edit", "Reject"} <= shown


async def test_quitting_during_a_run_holds_it_until_answered_and_yes_stops_it(site, model_server,
                                                                             db_path: Path) -> None:
    """The question "Stop it and quit?" stays up while the run's events come in, and the run
    takes no action while it waits for the answer."""
    # A second per answer: after the first action, the run's next answer is still a second away
    # however late a loaded machine lets the test see that action and press q.
    script = {"server": {"latency_s": 1.0}, **demo_script()}
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(script), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            await pilot.press("a")
            await until(pilot, lambda: rows(db_path, "select 1 from events where type = 'ACT_OK'"), "an action done")
            await pilot.press("q")
            await until(pilot, lambda: on_top(app, "ConsentScreen"), "are you sure")
            paused = "select seq from events where type = 'TASK_PAUSE'"
            await until(pilot, lambda: rows(db_path, paused), "the run to hold before its next action")
            since = rows(db_path, paused)[0]["seq"]
            await pilot.pause(2.5)  # a run that went on would act in this time: the model answers in 1 s
            assert on_top(app, "ConsentScreen"), "the question closed by itself"
            assert not rows(db_path, "select 1 from events where type = 'ACT_START' and seq > ?", since)
            await pilot.press("y")
            await until(pilot, lambda: not app.is_running, "the app to quit once the run stopped")
        assert app.result is not None and app.result.status is Status.CANCELLED
        assert not rows(db_path, "select 1 from events where type = 'ACT_START' and seq > ?", since)
    finally:
        recorder.close()

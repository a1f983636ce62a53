"""The run screen and its dialogs, driven through Textual's Pilot on real runs: real browser,
real model endpoint, real store."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import Input

from kit import answer, call, demo_script, rows
from dashboard_kit import GOAL, dashboard_app, ends_ok, log_rows, on_top, screen_text, text, until
from goalbot.agents.control import SessionControl
from goalbot.agents.session import Status
from tui.images import prepare_images


async def test_approve_in_the_plan_dialog_and_watch_it_finish(site, model_server, db_path: Path) -> None:
    prepare_images("halfcell")  # as the command line does before the app starts
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            assert "1. Sign in with the demo account" in screen_text(app, "#review-steps")
            assert "Approve this plan?" in text(app, "#plan")
            assert "awaiting approval" in text(app, "#status")
            assert site.state.snapshot()["signed_in"] == []  # nothing happens before approval

            await pilot.press("a")
            await until(pilot, lambda: app.result is not None, "the session to end")
            await pilot.pause(0.6)  # the picture is redrawn at most twice a second

            assert app.result.status is Status.OK
            status = text(app, "#status")
            assert " ok " in status and "step 2/20" in status and "progress 100%" in status
            assert "validator: valid" in status
            assert "▇" in status or "█" in status  # the confidence trend
            assert text(app, "#plan").count("✔") == 2
            assert "Settings · Acme Account" in text(app, "#screenshot-caption")
            picture = app.run_screen.query_one("#screenshot-image")
            assert picture.image.size == (1280, 800)  # the browser's latest screenshot
            log = "\n".join(log_rows(app.run_screen))
            assert "PLAN_APPROVED" in log and "plan approved by dashboard" in log
            assert "VALIDATE_OK" in log and "TASK_OK" in log

            await pilot.press("m")  # the Set-of-Mark version of the same picture
            await pilot.pause(0.2)
            assert "(marks: " in text(app, "#screenshot-caption")
            await pilot.press("m")
            await pilot.pause(0.2)
            assert "(marks: " not in text(app, "#screenshot-caption")
            await pilot.press("q")
    finally:
        recorder.close()
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


async def test_the_plan_is_edited_in_the_dialog_and_the_edited_plan_runs(site, model_server, db_path: Path) -> None:
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    steps = lambda: screen_text(app, "#review-steps")  # noqa: E731
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            await pilot.press("n", *"Look around", "enter")  # a new step after the first
            assert steps().index("2. Look around") < steps().index("3. Turn on the dark mode")
            await pilot.press("shift+up")  # the new step moves to the top
            assert "1. Look around" in steps() and "2. Sign in" in steps()
            await pilot.press("d")  # and is deleted
            assert "Look around" not in steps() and "1. Sign in" in steps()
            await pilot.press("e", "ctrl+u", *"Sign in as demo@example.com", "enter")
            assert "1. Sign in as demo@example.com" in steps()
            assert "(edited: 1 changed)" in screen_text(app, "#review-title")
            await pilot.press("a")
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    approved = json.loads(rows(db_path, "select data from events where type = 'PLAN_APPROVED'")[0]["data"])
    wanted = ["Sign in as demo@example.com", "Turn on the dark mode switch in the settings and save"]
    assert approved["steps"] == wanted and approved["edited"] is True and approved["by"] == "dashboard"
    run = [json.loads(r["data"])["description"] for r in rows(db_path, "select data from events where type = 'STEP_START'")]
    assert run == wanted


async def test_edits_of_a_plan_put_off_with_esc_are_kept_and_approved(site, model_server, db_path: Path) -> None:
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            await pilot.press("e", "ctrl+u", *"Sign in as demo@example.com", "enter")
            await pilot.press("escape")  # later: the plan keeps waiting, and so do the edits
            await until(pilot, lambda: app.screen is app.run_screen, "back to the run screen")
            # The plan panel shows the plan as the person left it, not the steps they changed.
            await until(pilot, lambda: "1. Sign in as demo@example.com" in text(app, "#plan"), "the edits in the panel")
            assert "Sign in with the demo account" not in text(app, "#plan")
            await pilot.press("e")  # open it again: the edit is there
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog again")
            assert "1. Sign in as demo@example.com" in screen_text(app, "#review-steps")
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is app.run_screen, "back to the run screen again")
            await pilot.press("a")  # approved from the run screen: as the person left it
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    approved = json.loads(rows(db_path, "select data from events where type = 'PLAN_APPROVED'")[0]["data"])
    assert approved["steps"][0] == "Sign in as demo@example.com" and approved["edited"] is True, approved


async def test_reject_with_feedback_in_the_dialog_gets_a_new_plan(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["planner"].append(answer(call("plan", observation="sign-in page", steps=[
        "Sign in as demo@example.com", "Turn on the dark mode switch in the settings and save",
    ], progress_percent=0, confidence=0.8)))
    model = model_server(script)
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model, db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the first plan")
            await pilot.press("r")
            await until(pilot, lambda: app.screen.query_one("#review-input", Input).has_focus, "the feedback box")
            await pilot.press(*"name the account", "enter")
            await until(pilot, lambda: on_top(app, "PlanReviewScreen")
                        and "Sign in as demo@example.com" in screen_text(app, "#review-steps"), "the second plan")
            assert "↻" in text(app, "#plan")  # the rejected steps stay visible, struck out…
            # …unnumbered: the new plan's first step is the run's step 1, as the status line counts
            assert "○ 1. Sign in as demo@example.com" in text(app, "#plan") and "3." not in text(app, "#plan")
            await pilot.press("a")
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    rejected = rows(db_path, "select data from events where type = 'PLAN_REJECTED'")
    assert len(rejected) == 1 and "name the account" in rejected[0]["data"]
    planner_requests = [r for r in model.requests if r["role"] == "planner"]
    assert "name the account" in planner_requests[1]["messages"][-1]["content"]


async def test_a_plan_put_off_with_esc_is_approved_later_from_the_run_screen(site, model_server, db_path: Path) -> None:
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            await pilot.press("escape")
            await pilot.pause(0.5)
            assert app.screen is app.run_screen and app.control.awaiting_plan  # still waiting, not reopened
            await pilot.press("r")  # the reject box from the run screen; Esc backs out of it
            await until(pilot, lambda: on_top(app, "RejectScreen"), "the reject box")
            await pilot.press("escape")
            await pilot.press("a")
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    assert rows(db_path, "select count(*) as n from events where type = 'PLAN_REJECTED'")[0]["n"] == 0


async def test_ctrl_c_in_the_dashboard_stops_the_run_as_cancelled(site, model_server, db_path: Path) -> None:
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: app.control.awaiting_plan, "the plan")
            await pilot.press("ctrl+c")
            await until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.CANCELLED
            await pilot.pause(0.2)
            assert "cancelled" in text(app, "#status")
            await pilot.press("q")
    finally:
        recorder.close()
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"
    assert site.state.snapshot()["signed_in"] == []


async def test_pause_holds_the_run_until_resumed(site, model_server, db_path: Path) -> None:
    """`p` pauses before the next action: the browser does nothing until `p` again."""
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    seen: list[str] = []
    app.bus.subscribe(lambda event: seen.append(event.type.value))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan")
            await pilot.press("escape", "p", "a")
            await until(pilot, lambda: "TASK_PAUSE" in seen, "the pause")
            await pilot.pause(1.5)
            assert site.state.snapshot()["signed_in"] == []  # held: nothing was typed or clicked
            assert app.result is None and "paused" in text(app, "#status")
            await pilot.press("p")
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    kinds = [r["type"] for r in rows(db_path, "select type from events order by seq")]
    paused, resumed = kinds.index("TASK_PAUSE"), kinds.index("TASK_RESUME")
    assert "ACT_START" not in kinds[paused:resumed]
    assert kinds.index("ACT_START") > resumed


async def test_not_go_shows_what_where_and_the_screen(hardsite, model_server, db_path: Path) -> None:
    from kit import element, plan

    hardsite.reset()
    prepare_images("halfcell")
    model = model_server({"planner": [plan("Buy the kit")],
                          "navigator": [answer(call("click", index=element("Buy now")))]})
    control = SessionControl(auto_approve=True)
    app, recorder = dashboard_app(hardsite.page("shop"), "buy the kit", model, db_path, control)
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            await until(pilot, lambda: control.awaiting_consent and on_top(app, "ConsentScreen")
                        and bool(app.screen.query("#consent-question")), "the GO / NOT GO question")
            question = screen_text(app, "#consent-question")
            assert "GO / NOT GO?" in question and "Buy now" in question and hardsite.page("shop") in question
            assert "NOT GO" in screen_text(app, "#consent-keys")
            picture = app.screen.query_one("#consent-picture #screenshot-image")
            assert picture.image.size[0] > 0  # the screen the click would land on
            await pilot.press("n")
            await until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.CANCELLED and "NOT GO" in app.result.reason
            await pilot.press("q")
    finally:
        recorder.close()
    assert hardsite.reached("/api/buy") == []
    denied = rows(db_path, "select data from events where type = 'APPROVAL_DENIED'")
    assert '"by": "dashboard"' in denied[0]["data"]


async def test_the_agents_question_is_answered_in_a_dialog(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["navigator"].insert(0, answer(call("call_user", question="Which account should I use?")))
    model = model_server(script)
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model, db_path, SessionControl(auto_approve=True))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: on_top(app, "QuestionScreen") and bool(app.screen.query("#answer")),
                        "the question")
            assert "Which account should I use?" in screen_text(app, "#question-text")
            await pilot.press(*"the demo one", "enter")
            await ends_ok(pilot, app)
    finally:
        recorder.close()
    reply = json.loads(rows(db_path, "select data from events where type = 'USER_REPLY'")[0]["data"])
    assert reply["answer"] == "the demo one" and reply["by"] == "dashboard"
    navigator = [r for r in model.requests if r["role"] == "navigator"]
    assert "the demo one" in json.dumps(navigator[1]["messages"])


async def test_the_plan_panel_counts_the_wait_for_a_slow_planner_and_stops_once_the_run_ended(
        site, model_server, db_path: Path) -> None:
    """A local model can take minutes to plan: the panel says how long it has waited, and once the
    run ended without a plan it says so rather than waiting on."""
    # Every planner answer is malformed and slow: the run fails before it has a plan.
    model = model_server({"planner": [{"content": "I think we should sign in first."}] * 6,
                          "server": {"latency_s": 1.5}})
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model, db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: re.search(r"waiting for the planner… \d+ s", text(app, "#plan")) is not None,
                        "the time waited")
            await until(pilot, lambda: app.result is not None, "the run to end", seconds=120)
            await until(pilot, lambda: "no plan: the run ended (failed)" in text(app, "#plan"), "the ending")
            assert "waiting" not in text(app, "#plan")
    finally:
        recorder.close()

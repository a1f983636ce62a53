"""The dashboard, driven through Textual's Pilot, on a real run: real browser, real model
endpoint, real store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from textual.pilot import Pilot
from textual.widgets import Input

from conftest import answer, call, demo_script, rows
from goalbot.agents.control import SessionControl
from goalbot.agents.session import RunOptions, Session, Status
from goalbot.events import Bus, Emitter, new_session_id
from goalbot.llm.client import ModelClient, ModelConfig
from goalbot.operators.browser import BrowserOperator
from goalbot.operators.browser_launch import BrowserOptions
from storage.recorder import Recorder
from tui.app import GoalbotApp
from tui.images import prepare_images

GOAL = "sign in and turn on dark mode"


def dashboard_app(
    url: str, goal: str, model, db_path: Path, control: SessionControl | None = None
) -> tuple[GoalbotApp, Recorder]:
    """The dashboard on a real session: the scripted model over HTTP, Chromium, a SQLite store."""
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, new_session_id())
    control = control or SessionControl()
    options = RunOptions(goal=goal, url=url)
    client = ModelClient(ModelConfig(base_url=model.base_url, model="scripted"), emitter)
    session = Session(options, BrowserOperator(BrowserOptions(headless=True)), client, emitter, control)
    return GoalbotApp(bus, session, control, options), recorder


async def _until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


def _text(app: GoalbotApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_approve_with_the_key_and_watch_it_finish(site, model_server, db_path: Path) -> None:
    prepare_images()  # as the command line does before the app starts
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _until(pilot, lambda: app.control.awaiting_plan, "the plan to wait for approval")
            plan = _text(app, "#plan")
            assert "1. Sign in with the demo account" in plan
            assert "Approve this plan?" in plan
            assert "awaiting approval" in _text(app, "#status")
            assert site.state.snapshot()["signed_in"] == []  # nothing happens before approval

            await pilot.press("a")
            await _until(pilot, lambda: app.result is not None, "the session to end")
            await pilot.pause(0.3)

            assert app.result.status is Status.OK
            status = _text(app, "#status")
            assert "done" in status and "step 2/20" in status and "progress 100%" in status
            assert "validator: valid" in status
            assert _text(app, "#plan").count("✔") == 2
            assert "screenshot" not in _text(app, "#screenshot-caption")
            assert "Settings · Acme Account" in _text(app, "#screenshot-caption")
            picture = app.screen.query_one("#screenshot-image")
            assert picture.image.size == (1280, 800)  # the browser's latest screenshot
            log = "\n".join(str(line.text) for line in app.screen.query_one("#log").lines)
            assert "PLAN_APPROVED" in log and "plan approved by dashboard" in log
            assert "TASK_OK" in log

            await pilot.press("q")
    finally:
        recorder.close()
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


async def test_reject_with_feedback_gets_a_new_plan(site, model_server, db_path: Path) -> None:
    script = demo_script()
    replan = answer(call("plan", observation="sign-in page", steps=[
        "Sign in as demo@example.com", "Turn on the dark mode switch in the settings and save",
    ], progress_percent=0, confidence=0.8))
    script["planner"].append(replan)
    model = model_server(script)
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model, db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _until(pilot, lambda: app.control.awaiting_plan, "the first plan")
            await pilot.press("r")
            await _until(pilot, lambda: bool(app.screen.query(Input)), "the feedback box")
            await pilot.press(*"name the account", "enter")
            await _until(pilot, lambda: "Sign in as demo@example.com" in _text(app, "#plan")
                         and app.control.awaiting_plan, "the second plan")
            assert "↻" in _text(app, "#plan")  # the rejected steps stay visible, struck out
            await pilot.press("a")
            await _until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.OK
            await pilot.press("q")
    finally:
        recorder.close()
    rejected = rows(db_path, "select data from events where type = 'PLAN_REJECTED'")
    assert len(rejected) == 1 and "name the account" in rejected[0]["data"]
    planner_requests = [r for r in model.requests if r["role"] == "planner"]
    assert "name the account" in planner_requests[1]["messages"][-1]["content"]


async def test_ctrl_c_in_the_dashboard_stops_the_run_as_cancelled(site, model_server, db_path: Path) -> None:
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _until(pilot, lambda: app.control.awaiting_plan, "the plan")
            await pilot.press("ctrl+c")
            await _until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.CANCELLED
            await pilot.pause(0.2)
            assert "cancelled" in _text(app, "#status")
            await pilot.press("q")
    finally:
        recorder.close()
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"
    assert site.state.snapshot()["signed_in"] == []


async def test_pause_holds_the_run_until_resumed(site, model_server, db_path: Path) -> None:
    """`p` pauses before the next action: the browser does nothing until `p` again."""
    prepare_images()
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path)
    seen: list[str] = []
    app.bus.subscribe(lambda event: seen.append(event.type.value))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _until(pilot, lambda: app.control.awaiting_plan, "the plan")
            await pilot.press("p")
            await pilot.press("a")
            await _until(pilot, lambda: "TASK_PAUSE" in seen, "the pause")
            await pilot.pause(1.5)
            assert site.state.snapshot()["signed_in"] == []  # held: nothing was typed or clicked
            assert app.result is None
            await pilot.press("p")
            await _until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.OK
            await pilot.press("q")
    finally:
        recorder.close()
    kinds = [r["type"] for r in rows(db_path, "select type from events order by seq")]
    paused, resumed = kinds.index("TASK_PAUSE"), kinds.index("TASK_RESUME")
    assert "ACT_START" not in kinds[paused:resumed]
    assert kinds.index("ACT_START") > resumed


async def test_not_go_in_the_dashboard_keeps_the_purchase_off_the_shop(hardsite, model_server, db_path: Path) -> None:
    from test_agent_loop import element, plan

    hardsite.reset()
    prepare_images()
    model = model_server({"planner": [plan("Buy the kit")],
                          "navigator": [answer(call("click", index=element("Buy now")))]})
    control = SessionControl(auto_approve=True)
    app, recorder = dashboard_app(hardsite.page("shop"), "buy the kit", model, db_path, control)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _until(pilot, lambda: control.awaiting_consent and type(app.screen).__name__ == "ConsentScreen"
                         and bool(app.screen.query("#consent-question")), "the GO / NOT GO question")
            question = _text(app, "#consent-question")
            assert "GO / NOT GO?" in question and "Buy now" in question and hardsite.page("shop") in question
            assert "NOT GO" in _text(app, "#consent-keys")
            await pilot.press("n")
            await _until(pilot, lambda: app.result is not None, "the session to end")
            assert app.result.status is Status.CANCELLED and "NOT GO" in app.result.reason
            await pilot.press("q")
    finally:
        recorder.close()
    assert hardsite.reached("/api/buy") == []
    denied = rows(db_path, "select data from events where type = 'APPROVAL_DENIED'")
    assert '"by": "dashboard"' in denied[0]["data"]

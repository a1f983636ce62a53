"""Every token counted and priced, a model per role, and budgets that pause the run to ask the
person — in the terminal, in the dashboard, or, with nobody there, stopping cleanly."""

from __future__ import annotations

from pathlib import Path

from kit import demo_script, rows, run_cli, run_goal, stored_events
from dashboard_kit import dashboard_app
from goalbot.agents.control import SessionControl
from goalbot.agents.session import Status
from goalbot.llm.usage import Limits
from tui.images import prepare_images

DEMO_GOAL = "sign in and turn on dark mode"


def _run(site, model, db_path: Path, *flags: str, goal: str = DEMO_GOAL):
    return run_goal(db_path, model, f"{site.url}/login", goal, *flags)


def test_a_priced_model_costs_what_the_table_says(site, model_server, db_path: Path) -> None:
    result, events = _run(site, model_server(demo_script()), db_path, "--model", "gpt-4o-mini-2024-07-18")
    assert result.returncode == 0, result.stderr
    calls = [e for e in events if e["type"] == "LLM_CALL"]
    for e in calls:  # gpt-4o-mini: $0.15 in, $0.60 out per million tokens
        assert e["cost_usd"] == round((e["tokens_in"] * 0.15 + e["tokens_out"] * 0.60) / 1e6, 6)
    session = rows(db_path, "select * from sessions")[0]
    assert session["model_calls"] == len(calls) == 5
    assert session["tokens_in"] == sum(e["tokens_in"] for e in calls)
    assert abs(session["cost_usd"] - sum(e["cost_usd"] for e in calls)) < 1e-9
    listing = run_cli("--db", str(db_path), "sessions").stdout
    assert f"${session['cost_usd']:.4f}" in listing


def test_an_unknown_model_has_no_cost_rather_than_zero(site, model_server, db_path: Path) -> None:
    result, events = _run(site, model_server(demo_script()), db_path, "--model", "qwen2.5-vl-local")
    assert result.returncode == 0, result.stderr
    assert all("cost_usd" not in e for e in events if e["type"] == "LLM_CALL")
    assert rows(db_path, "select cost_usd from sessions")[0]["cost_usd"] is None
    assert "–" in run_cli("--db", str(db_path), "sessions").stdout


def test_each_role_asks_its_own_model(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    result, events = _run(site, model, db_path, "--model", "everyday", "--planner-model", "deep-planner",
                          "--validator-model", "strict-judge")
    assert result.returncode == 0, result.stderr
    asked = {(r["role"], r["model"]) for r in model.requests}
    assert asked == {("planner", "deep-planner"), ("navigator", "everyday"), ("validator", "strict-judge")}
    answered = {(e["role"], e["model"]) for e in events if e["type"] == "LLM_CALL"}
    assert answered == asked
    # Without --vision no screenshot leaves the machine.
    assert not any(isinstance(m.get("content"), list) for r in model.requests for m in r["messages"])


def test_a_korean_goal_goes_through_unchanged(site, model_server, db_path: Path) -> None:
    goal = "데모 계정으로 로그인하고 설정에서 다크 모드를 켜 줘"
    script = demo_script()
    plan = script["planner"][0]["tool_calls"][0]["arguments"]
    plan["steps"] = ["화면에 보이는 데모 계정으로 로그인", "설정에서 다크 모드 스위치를 켜고 저장"]
    model = model_server(script)
    result, events = _run(site, model, db_path, "--model", "scripted", goal=goal)
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert rows(db_path, "select goal from sessions")[0]["goal"] == goal
    planner_prompt = model.requests[0]["messages"][1]["content"]
    assert f"Goal: {goal}" in planner_prompt
    navigator_prompt = next(r for r in model.requests if r["role"] == "navigator")["messages"][1]["content"]
    assert "Your step: 화면에 보이는 데모 계정으로 로그인" in navigator_prompt
    steps = [e["description"] for e in events if e["type"] == "STEP_OK"]
    assert steps == plan["steps"]
    tail = run_cli("--db", str(db_path), "tail", "-n", "200").stdout
    assert goal in tail and "설정에서 다크 모드 스위치를 켜고 저장" in tail


def test_over_budget_with_nobody_to_ask_stops_cleanly(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    result, events = _run(site, model, db_path, "--model", "scripted", "--max-calls", "2")
    assert result.returncode == 1
    assert len(model.requests) == 2
    kinds = [e["type"] for e in events if e["type"] != "OBSERVATION"]  # less the last look, with its picture
    assert kinds[-4:] == ["TASK_PAUSE", "APPROVAL_REQUEST", "APPROVAL_DENIED", "TASK_CANCEL"]
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "budget" and "made 2 model calls; 2 were allowed (--max-calls 2 at a time)" in request["what"]
    assert next(e for e in events if e["type"] == "APPROVAL_DENIED")["by"] == "nobody to ask"
    session = rows(db_path, "select * from sessions")[0]
    assert session["status"] == "cancelled" and "stopped at the budget" in session["finish_reason"]
    assert "--max-calls 2" in result.stderr


def test_token_budget_counts_the_prompt_about_to_be_sent(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    result, events = _run(site, model, db_path, "--model", "scripted", "--max-tokens", "2500")
    assert result.returncode == 1
    spent = sum(e["tokens_in"] + e["tokens_out"] for e in events if e["type"] == "LLM_CALL")
    assert 0 < spent <= 2500
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert f"used {spent:,} tokens" in request["what"] and "(--max-tokens 2,500 at a time)" in request["what"]


async def test_the_person_lets_the_run_go_on_from_the_dashboard(site, model_server, db_path: Path) -> None:
    prepare_images()
    control = SessionControl(auto_approve=True)
    app, recorder = dashboard_app(f"{site.url}/login", DEMO_GOAL, model_server(demo_script()), db_path, control,
                                  limits=Limits(max_calls=2))
    granted = 0
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            while app.result is None:
                await pilot.pause(0.1)
                if (control.awaiting_consent and type(app.screen).__name__ == "ConsentScreen"
                        and app.screen.query("#consent-question")):  # composed, not only pushed
                    question = str(app.screen.query_one("#consent-question").render())
                    assert "model calls; " in question and "(--max-calls 2 at a time)" in question
                    assert "NOT GO" not in str(app.screen.query_one("#consent-keys").render())
                    assert "paused" in str(app.run_screen.query_one("#status").render())
                    await pilot.press("y")
                    granted += 1
            assert app.result.status is Status.OK
    finally:
        recorder.close()
    assert granted == 2  # 5 calls, 2 allowed at a time: asked after the 2nd and the 4th
    stored = stored_events(db_path)
    assert [e["by"] for e in stored if e["type"] == "APPROVAL_GRANTED"] == ["dashboard", "dashboard"]
    assert [e["type"] for e in stored].count("TASK_RESUME") == 2
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}

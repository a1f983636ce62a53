"""What a run costs: a one-step goal whose plan carries its actions asks no navigator; a step
whose turns ran out is judged from the page, not counted failed unseen; a request offers the data
tools only to a step that reads; nobody watching, no screenshot is taken unless the replay asks.
Real Chromium, the demo site, the scripted model over HTTP, a real store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kit import answer, call, demo_script, element, rows, run_goal, verdict

GOAL = "sign in with the demo account"
SIGN_IN = [{"action": "type", "index": element("Email"), "text": "demo@example.com"},
           {"action": "type", "index": element("Password"), "text": "demo-pass"},
           {"action": "click", "index": element("Sign in")}]


def one_step_plan(first_actions: list[dict[str, Any]]) -> dict[str, Any]:
    return answer(call("plan", observation="a sign-in page", steps=["Sign in with the demo account"],
                       progress_percent=0, confidence=0.8, first_actions=first_actions))


def signed_in(site: Any) -> bool:
    return "demo@example.com" in str(site.state.snapshot())


def test_a_one_step_plan_with_its_actions_asks_no_navigator(site, model_server, db_path: Path) -> None:
    finished = {"action": "finished", "summary": "signed in"}
    model = model_server({"planner": [one_step_plan([*SIGN_IN, finished])], "navigator": [],
                          "validator": [verdict(True, "the settings page says signed in")]})
    result, events = run_goal(db_path, model, f"{site.url}/login", GOAL)
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests] == ["planner", "validator"]
    assert signed_in(site)
    kinds = [e["type"] for e in events]
    assert kinds.index("PLAN_APPROVED") < kinds.index("ACT_START")  # approved before the first action
    assert kinds.count("ACT_OK") == 4 and "STEP_OK" in kinds and kinds[-1] == "TASK_OK"


def test_unusable_first_actions_leave_the_step_to_the_navigator(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["planner"] = [one_step_plan([{"action": "teleport", "to": "settings"}])]
    script["validator"] = script["validator"][:1]
    model = model_server(script)
    result, events = run_goal(db_path, model, f"{site.url}/login", GOAL)
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests] == ["planner", "navigator", "validator"]
    assert signed_in(site)


def test_a_step_done_on_its_last_turn_is_judged_done(site, model_server, db_path: Path) -> None:
    # Six answers (the default turns per step), the sign-in in the last, and never `finished`.
    navigator = [answer(call("wait", seconds=0.1))] * 3 + [
        answer(call(a["action"], **{k: v for k, v in a.items() if k != "action"})) for a in SIGN_IN]
    model = model_server({"planner": [one_step_plan([])], "navigator": navigator,
                          "validator": [verdict(True, "the settings page says signed in")]})
    result, events = run_goal(db_path, model, f"{site.url}/login", GOAL)
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests].count("navigator") == 6
    kinds = [e["type"] for e in events]
    assert "STEP_FAIL" not in kinds and "STEP_OK" in kinds and kinds[-1] == "TASK_OK"
    assert signed_in(site)


def test_a_step_the_plan_says_is_long_gets_twice_the_turns(site, model_server, db_path: Path) -> None:
    plan = one_step_plan([])
    plan["tool_calls"][0]["arguments"]["long_steps"] = [1]
    navigator = [answer(call("wait", seconds=0.1))] * 9 + [
        answer(*(call(a["action"], **{k: v for k, v in a.items() if k != "action"}) for a in SIGN_IN),
               call("finished", success=True, summary="signed in"))]
    model = model_server({"planner": [plan], "navigator": navigator,
                          "validator": [verdict(True, "the settings page says signed in")]})
    result, events = run_goal(db_path, model, f"{site.url}/login", GOAL)
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests].count("navigator") == 10  # beyond the 6 of a step
    assert [e["type"] for e in events].count("PLAN_PROPOSED") == 1 and signed_in(site)


def test_the_data_tools_are_offered_only_to_a_step_that_reads(site, model_server, db_path: Path) -> None:
    script = demo_script()
    model = model_server(script)
    result, _events = run_goal(db_path, model, f"{site.url}/login", "sign in and turn on dark mode")
    assert result.returncode == 0, result.stderr
    offered = [{t["function"]["name"] for t in r["tools"]} for r in model.requests if r["role"] == "navigator"]
    assert offered and all("click" in names and not names & {"extract", "choose"} for names in offered)
    system = next(r for r in model.requests if r["role"] == "navigator")["messages"][0]["content"]
    assert "`extract`" not in system

    reading = demo_script()
    reading["planner"] = [answer(call("plan", observation="a sign-in page", steps=["Read the page's heading"],
                                      progress_percent=0, confidence=0.8))]
    reading["navigator"] = [answer(call("finished", success=True, summary="read it"))]
    reading["validator"] = [verdict(True, "read")]
    model = model_server(reading)
    result, _events = run_goal(db_path, model, f"{site.url}/login", "read the heading")
    assert result.returncode == 0, result.stderr
    request = next(r for r in model.requests if r["role"] == "navigator")
    assert {"extract", "choose"} <= {t["function"]["name"] for t in request["tools"]}
    assert "`extract`" in request["messages"][0]["content"]


def test_nobody_watching_takes_no_screenshot_unless_the_replay_asks(site, model_server, db_path: Path,
                                                                    tmp_path: Path) -> None:
    result, events = run_goal(db_path, model_server(demo_script()), f"{site.url}/login",
                              "sign in and turn on dark mode", "--headless")
    assert result.returncode == 0, result.stderr
    assert rows(db_path, "select count(*) as n from artifacts where kind = 'screenshot'")[0]["n"] == 0
    assert any(e["type"] == "OBSERVATION" for e in events)  # the looks are stored, boxes and all

    kept = tmp_path / "replay.db"
    result, _events = run_goal(kept, model_server(demo_script()), f"{site.url}/login",
                               "sign in and turn on dark mode", "--headless", "--replay-pictures")
    assert result.returncode == 0, result.stderr
    assert rows(kept, "select count(*) as n from artifacts where kind = 'screenshot'")[0]["n"] >= 2

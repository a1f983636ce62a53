"""The loop's stopping rules and re-planning, on real parts: the demo site, real Chromium, the
scripted model over HTTP, a real store."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from kit import REPO, answer, call, demo_script, rows, run_goal, stored_session, wait_until

GOAL = "sign in and turn on dark mode"


def plan(*steps: str) -> dict:
    return answer(call("plan", observation="page", steps=list(steps), progress_percent=10, confidence=0.6))


def verdict(ok: bool, reason: str) -> dict:
    return answer(call("verdict", is_valid=ok, reason=reason, confidence=0.8 if ok else 0.3))


def _run(site, model, db_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    return run_goal(db_path, model, f"{site.url}/login", GOAL, *extra)


def test_validator_rejection_goes_back_to_the_planner(site, model_server, db_path: Path) -> None:
    script = demo_script()
    # The first verdict rejects the sign-in step; the planner re-plans and the rest succeeds.
    script["validator"].insert(0, verdict(False, "the page still shows the sign-in form"))
    script["planner"].append(plan("Turn on the dark mode switch in the settings and save"))
    model = model_server(script)
    result, events = _run(site, model, db_path)
    assert result.returncode == 0, result.stderr
    types = [e["type"] for e in events]
    assert types.count("PLAN_PROPOSED") == 2 and "VALIDATE_FAIL" in types and types[-1] == "TASK_OK"
    replan_request = [r for r in model.requests if r["role"] == "planner"][1]
    assert "the page still shows the sign-in form" in replan_request["messages"][-1]["content"]
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}


def test_max_failures_stops_a_run_that_keeps_failing(site, model_server, db_path: Path) -> None:
    give_up = answer(call("finished", success=False, summary="cannot find it"))
    script = {"planner": [plan("Find the teleporter")] * 3, "navigator": [give_up] * 3}
    result, events = _run(site, model_server(script), db_path, "--max-failures", "3")
    assert result.returncode == 1
    assert [e["type"] for e in events].count("STEP_FAIL") == 3
    assert events[-1]["type"] == "TASK_FAIL" and "3 failures in a row" in events[-1]["reason"]


def test_max_steps_stops_the_run(site, model_server, db_path: Path) -> None:
    script = demo_script()
    result, events = _run(site, model_server(script), db_path, "--max-steps", "1")
    assert result.returncode == 1
    assert [e["type"] for e in events].count("STEP_START") == 1
    assert "reached --max-steps (1)" in events[-1]["reason"]
    assert rows(db_path, "select status from sessions")[0]["status"] == "failed"


def test_a_crashed_browser_ends_the_run_with_a_clear_event(site, model_server, db_path: Path) -> None:
    script = {"planner": [plan("Open the crash page")],
              "navigator": [answer(call("navigate", url="chrome://crash"))]}
    # Browser pages stay shut unless the person opens their scheme; this one crashes the tab.
    result, events = _run(site, model_server(script), db_path, "--allow-scheme", "chrome")
    assert result.returncode == 1
    assert events[-1]["type"] == "TASK_FAIL" and "Target crashed" in events[-1]["reason"]
    assert rows(db_path, "select count(*) as n from artifacts")[0]["n"] >= 1  # kept


def test_ctrl_c_stops_cleanly_and_stores_the_session_as_cancelled(site, model_server, db_path: Path) -> None:
    script = {"planner": [plan("Wait for the page")],
              "navigator": [answer(call("wait", seconds=60))]}
    model = model_server(script)
    process = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", GOAL, "--url",
         f"{site.url}/login", "--no-tui", "--yes", "--base-url", model.base_url, "--model", "s"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    wait_until(lambda: rows(db_path, "select 1 from events where type = 'ACT_START'"), 60, "the wait starting")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "Traceback" not in err and "cancelled: stopped by the person" in err
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"
    assert rows(db_path, "select type from events order by id desc limit 1")[0]["type"] == "TASK_CANCEL"


async def test_a_bug_mid_run_is_recorded_with_its_traceback(site, model_server, db_path: Path) -> None:
    from goalbot.agents.session import RunOptions, Status
    from goalbot.operators.browser.operator import BrowserOperator

    class BuggyOperator(BrowserOperator):
        async def execute(self, action):  # a programming error deep in an operator
            raise RuntimeError("boom")

    model = model_server(demo_script())
    session, recorder = stored_session(db_path, RunOptions(goal=GOAL, url=f"{site.url}/login"), BuggyOperator(),
                                       model)
    result = await session.run()
    recorder.close()
    assert result.status is Status.FAILED and result.reason == "unexpected error: RuntimeError: boom"
    last = json.loads(rows(db_path, "select data from events order by id desc limit 1")[0]["data"])
    assert last["reason"] == result.reason
    assert "Traceback" in last["detail"] and "raise RuntimeError" in last["detail"]
    assert rows(db_path, "select status from sessions")[0]["status"] == "failed"

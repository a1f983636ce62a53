"""The planner's actions for a one-step plan, on a page that never stands still (a session clock,
a ticker): they run without a navigator call as long as what they point at is still there — by
another index when a late news line moved every index — and are left to the navigator when their
button is not the same any more. Judged by what the site received and by which roles were asked."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, element, finished, run_goal, verdict, wait_until

GOAL = "로그인해 줘 (sign in as demo@example.com)"
SIGN_IN = [{"action": "type", "index": element("Email", role="textbox"), "text": "demo@example.com"},
           {"action": "type", "index": element("Password", role="textbox"), "text": "demo-pass"},
           {"action": "click", "index": element("Sign in", role="button")},
           {"action": "finished", "summary": "signed in"}]


def _script(navigator: list[dict[str, Any]]) -> dict[str, Any]:
    plan = answer(call("plan", observation="a sign-in page", steps=["Sign in as demo@example.com"],
                       progress_percent=0, confidence=0.8, first_actions=SIGN_IN))
    # The plan takes a while to write, as a real model's does: the page moves on meanwhile.
    return {"planner": [plan], "navigator": navigator, "validator": [verdict(True, "Signed in.")] * 2,
            "server": {"latency_s": 2.0}}


def _run(hardsite: Any, model_server: Any, db_path: Path, change: str | None,
         navigator: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]], Any]:
    hardsite.reset()
    model = model_server(_script(navigator))
    if change:
        def changed_while_planning() -> None:
            wait_until(lambda: any(r["role"] == "planner" for r in model.requests), 120, "the planner asked")
            with hardsite.lock:
                hardsite.posted["change"] = {"kind": change}
        threading.Thread(target=changed_while_planning, daemon=True).start()
    result, events = run_goal(db_path, model, hardsite.page("live-signin"), GOAL)
    return result, events, model


@pytest.mark.parametrize("change", [None, "banner"], ids=["clock-and-ticker", "late-banner-moves-every-index"])
def test_the_planners_actions_survive_a_page_that_moves_where_they_do_not_point(
        hardsite, model_server, db_path: Path, change: str | None) -> None:
    result, events, model = _run(hardsite, model_server, db_path, change, navigator=[])
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests] == ["planner", "validator"], [r["role"] for r in model.requests]
    assert hardsite.reached("/api/signin", "POST") == ['{"email":"demo@example.com"}']
    clicked = next(e for e in events if e["type"] == "ACT_START" and e["action"]["name"] == "click")
    assert clicked["target"]["name"] == "Sign in"


def test_a_button_renamed_while_planning_leaves_the_step_to_the_navigator(hardsite, model_server,
                                                                          db_path: Path) -> None:
    navigator = [answer(call("type", index=element("Email", role="textbox"), text="demo@example.com"),
                        call("type", index=element("Password", role="textbox"), text="demo-pass"),
                        call("click", index=element("Log in", role="button"))),
                 finished(summary="signed in")]
    result, events, model = _run(hardsite, model_server, db_path, "renamed", navigator)
    assert result.returncode == 0, result.stderr
    assert [r["role"] for r in model.requests][:2] == ["planner", "navigator"]
    assert hardsite.reached("/api/signin", "POST") == ['{"email":"demo@example.com"}']

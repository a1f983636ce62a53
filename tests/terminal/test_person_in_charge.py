"""The person decides, at a real terminal (tmux): the plan as they edited it is the one run, a
GO lets a purchase through, silence is NOT GO, and a vague goal gets a question first."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, answer, call, element, finished, plan, run_goal, types, verdict
from tmux_kit import exit_code as _exit_code, tmux as _tmux, wait_for as _wait_for

tmux_only = pytest.mark.skipif(not __import__("shutil").which("tmux"), reason="tmux is not installed")


def _start(db_path: Path, model, url: str, goal: str, marker: Path, *flags: str) -> str:
    session = f"goalbot-person-{os.getpid()}-{marker.parent.name[-12:]}"
    command = (f"{sys.executable} -m goalbot --db {db_path} run {shlex.quote(goal)} --url {url} --no-tui "
               f"--base-url {model.base_url} --model scripted {' '.join(flags)}; echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}"]
    _tmux("new-session", "-d", "-s", session, "-x", "220", "-y", "50", "-c", str(REPO), *env, command)
    return session


def _stop(session: str) -> None:
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def _events(db_path: Path) -> list[dict]:
    from kit import stored_events
    return stored_events(db_path)


@tmux_only
def test_the_edited_plan_is_the_one_executed(hardsite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Save the settings", "Turn on Dark mode", "Open the privacy page")],
        "navigator": [answer(call("click", index=element("Dark mode"))), finished(),
                      answer(call("click", index=element("Save"))), finished()],
        "validator": [verdict(True, "checked"), verdict(True, "saved"), verdict(True, "dark mode saved")],
    }
    marker = tmp_path / "exit-code"
    session = _start(db_path, model_server(script), hardsite.page("display"), "turn on dark mode", marker)
    try:
        _wait_for(session, "Approve this plan?")
        for command in ("e", "m 2 1", "d 3", "1 Turn on the Dark mode switch", "y"):
            _tmux("send-keys", "-t", session, command, "Enter")
            _wait_for(session, "edit>" if command != "y" else "STEP_START")
        screen = _wait_for(session, "TASK_OK")
        assert "1. Turn on the Dark mode switch" in screen and "Traceback" not in screen
        assert _exit_code(marker) == "0"
    finally:
        _stop(session)
    events = _events(db_path)
    edited = ["Turn on the Dark mode switch", "Save the settings"]
    assert [e["description"] for e in events if e["type"] == "STEP_START"] == edited
    assert next(e for e in events if e["type"] == "PLAN_PROPOSED")["asks_approval"] is True
    approved = next(e for e in events if e["type"] == "PLAN_APPROVED")
    assert approved["steps"] == edited and approved["edited"] is True
    assert hardsite.posted["display"] == {"dark": True}


@tmux_only
def test_go_at_the_terminal_lets_the_purchase_through(hardsite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Buy the kit")],
        "navigator": [answer(call("click", index=element("Buy now"))), finished()],
        "validator": [verdict(True, "thank-you page"), verdict(True, "ordered")],
    }
    marker = tmp_path / "exit-code"
    session = _start(db_path, model_server(script), hardsite.page("shop"), "buy the kit", marker, "--yes")
    try:
        screen = _wait_for(session, "GO / NOT GO: click on 'Buy now'")
        assert hardsite.reached("/api/buy") == []  # nothing happens while the person thinks
        _tmux("send-keys", "-t", session, "go", "Enter")
        _wait_for(session, "TASK_OK")
        assert _exit_code(marker) == "0"
    finally:
        _stop(session)
    assert hardsite.reached("/api/buy", "POST") == ['{"qty":"1"}']
    granted = next(e for e in _events(db_path) if e["type"] == "APPROVAL_GRANTED")
    assert granted["kind"] == "payment" and granted["by"] == "user"
    assert "payment" in screen


@tmux_only
def test_no_answer_within_the_timeout_is_not_go(hardsite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    script = {"planner": [plan("Buy the kit")],
              "navigator": [answer(call("click", index=element("Buy now")))]}
    marker = tmp_path / "exit-code"
    session = _start(db_path, model_server(script), hardsite.page("shop"), "buy the kit", marker,
                     "--yes", "--approval-timeout", "2")
    try:
        _wait_for(session, "GO / NOT GO")
        _wait_for(session, "TASK_CANCEL", seconds=30)
        assert _exit_code(marker) == "1"
    finally:
        _stop(session)
    assert hardsite.reached("/api/buy") == []
    denied = next(e for e in _events(db_path) if e["type"] == "APPROVAL_DENIED")
    assert denied["by"] == "no answer within 2 s"


@tmux_only
def test_a_vague_goal_gets_a_question_first(hardsite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [answer(call("plan", observation="a shop", steps=[], question="Which shop: Kimchi Market or another?")),
                    plan("Add the kit to the cart")],
        "navigator": [answer(call("click", index=element("Add to cart"))), finished()],
        "validator": [verdict(True, "in the cart"), verdict(True, "in the cart")],
    }
    model = model_server(script)
    marker = tmp_path / "exit-code"
    session = _start(db_path, model, hardsite.page("shop"), "put the stew kit in the cart", marker, "--yes")
    try:
        _wait_for(session, "Which shop")
        _tmux("send-keys", "-t", session, "Kimchi Market, the one open now", "Enter")
        _wait_for(session, "TASK_OK")
        assert _exit_code(marker) == "0"
    finally:
        _stop(session)
    second = [r for r in model.requests if r["role"] == "planner"][1]["messages"][-1]["content"]
    assert "The person clarified:" in second and "Kimchi Market, the one open now" in second
    asked = next(e for e in _events(db_path) if e["type"] == "ASK_USER")
    assert asked["actor"] == "PLANNER"


def test_a_vague_goal_with_nobody_to_ask_stops_with_the_question(hardsite, model_server, db_path: Path) -> None:
    script = {"planner": [answer(call("plan", observation="a shop", steps=[], question="Which shop?"))]}
    result, events = run_goal(db_path, model_server(script), hardsite.page("shop"), "buy groceries")
    assert result.returncode == 1
    assert events[-1]["type"] == "TASK_FAIL" and "needs more before it can be planned: Which shop?" in events[-1]["reason"]
    assert "STEP_START" not in types(events)

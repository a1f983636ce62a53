"""`goalbot attach`: the dashboard on a run of another process, through the store — the run's
events drawn live, and the person's approvals, answers, pause and stop written back."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from kit import REPO, answer, call, demo_script, rows, wait_until
from dashboard_kit import GOAL, log_rows, on_top, screen_text, text, until
from tmux_kit import exit_code, tmux, wait_for
from tui.app import GoalbotApp


def _start_run(db_path: Path, model, url: str, goal: str, *flags: str) -> subprocess.Popen[str]:
    """`goalbot run --no-tui --await-attach` with no terminal at all, as a background job."""
    return subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", goal, "--url", url, "--no-tui",
         "--await-attach", "--base-url", model.base_url, "--model", "scripted", *flags],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )


def _running_session(db_path: Path, seconds: float = 30) -> str:
    found = wait_until(lambda: rows(db_path, "select id from sessions where status = 'running'"), seconds,
                       "the run storing its session")
    return str(found[0]["id"])


@pytest.fixture
def reaped() -> Iterator[list[subprocess.Popen[str]]]:
    runs: list[subprocess.Popen[str]] = []
    yield runs
    for run in runs:
        if run.poll() is None:
            run.kill()
            run.wait(10)


async def test_a_later_login_approves_the_plan_and_watches_the_run(site, model_server, db_path: Path, reaped) -> None:
    run = _start_run(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)
    reaped.append(run)
    session_id = _running_session(db_path)

    first = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with first.run_test(size=(160, 45)) as pilot:  # a first look, then leave: the run goes on
        await until(pilot, lambda: on_top(first, "PlanReviewScreen"), "the plan dialog")
        await pilot.press("escape", "q")
    # Leaving let the run go on: it is alive, waiting, and has done nothing yet.
    assert run.poll() is None and site.state.snapshot()["signed_in"] == []

    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog, from the store")
        assert "1. Sign in with the demo account" in screen_text(app, "#review-steps")
        await pilot.press("e", "ctrl+u", *"Sign in as demo@example.com", "enter", "a")
        await until(pilot, lambda: " ok " in text(app, "#status"), "the run's end, drawn live")
        assert "progress 100%" in text(app, "#status") and text(app, "#plan").count("✔") == 2
        assert "(attached)" in text(app, "#goal")
        assert "TASK_OK" in "\n".join(log_rows(app.run_screen))
        await pilot.press("q")
    assert run.wait(30) == 0, run.stderr.read()
    approved = json.loads(rows(db_path, "select data from events where type = 'PLAN_APPROVED'")[0]["data"])
    assert approved["by"] == "attach" and approved["steps"][0] == "Sign in as demo@example.com"
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert rows(db_path, "select count(*) as n from commands where payload != '{}'")[0]["n"] == 0


async def test_go_pause_and_stop_travel_through_the_store(hardsite, model_server, db_path: Path, reaped) -> None:
    from kit import element, plan

    hardsite.reset()
    model = model_server({"planner": [plan("Add the kit to the cart", "Buy the kit")], "navigator": [
        answer(call("click", index=element("Add to cart"))), answer(call("finished", success=True, summary="added")),
        answer(call("click", index=element("Buy now"))), answer(call("wait", seconds=30)),
    ], "validator": [answer(call("verdict", is_valid=True, reason="in the cart", confidence=0.9))]})
    run = _start_run(db_path, model, hardsite.page("shop"), "buy the kit", "--yes")
    reaped.append(run)
    session_id = _running_session(db_path)

    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(app, "ConsentScreen") and bool(app.screen.query("#consent-question")),
                    "the GO / NOT GO question")
        assert "Buy now" in screen_text(app, "#consent-question")
        await pilot.press("y")
        await until(pilot, lambda: bool(hardsite.reached("/api/buy")), "the purchase to reach the shop")
        # The log shows an action once it has ended; the store has it as soon as it starts.
        await until(pilot, lambda: any('"wait"' in (r["data"] or "") for r in rows(
            db_path, "select data from events where type = 'ACT_START'")), "the 30 s wait to start")
        await pilot.press("p")
        await until(pilot, lambda: "paused" in text(app, "#status"), "the pause, taken by the run")
        await pilot.press("s")
        await until(pilot, lambda: "cancelled" in text(app, "#status"), "the stop, taken by the run")
        await pilot.press("q")
    assert run.wait(30) == 1
    granted = json.loads(rows(db_path, "select data from events where type = 'APPROVAL_GRANTED'")[0]["data"])
    assert granted["by"] == "attach"
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"


def test_without_a_terminal_or_attach_a_run_still_refuses_to_wait(site, model_server, db_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", GOAL, "--url", f"{site.url}/login",
         "--no-tui", "--base-url", model_server(demo_script()).base_url],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=REPO, timeout=60)
    assert result.returncode == 2 and "--await-attach" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_goalbot_attach_in_a_real_terminal(site, model_server, db_path: Path, tmp_path: Path, reaped) -> None:
    run = _start_run(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)
    reaped.append(run)
    _running_session(db_path)
    session, marker = f"goalbot-attach-{os.getpid()}", tmp_path / "exit-code"
    # 16 colours: tmux sets TERM for its panes, so the command sets its own
    command = (f"env -u COLORTERM TERM=xterm {sys.executable} -m goalbot --db {db_path} attach; "
               f"echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}"]
    tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "45", "-c", str(REPO), *env, command)
    try:
        screen = wait_for(session, "The plan waits for your approval")
        assert "Sign in with the demo account" in screen
        tmux("send-keys", "-t", session, "a")
        screen = wait_for(session, " ok  ")
        assert "progress 100%" in screen and "(attached)" in screen
        tmux("send-keys", "-t", session, "q")
        assert exit_code(marker) == "0"
        # Leaving says where the session stands and how to come back to it, as `run` does.
        left = wait_for(session, "goalbot report ")
        assert re.search(r"goalbot: session \S+ is ok \(goalbot replay \S+; goalbot report \S+\)", left), left
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert run.wait(30) == 0


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_run_sent_to_the_background_with_await_attach_never_reads_the_terminal(
        site, model_server, db_path: Path, tmp_path: Path) -> None:
    """`goalbot run … --no-tui --await-attach &` in an interactive shell, as the manual shows it:
    the run waits for `goalbot attach` without touching the terminal, so the shell never stops it."""
    from tui.steering import StoreSteering

    model = model_server(demo_script())
    session = f"goalbot-background-{os.getpid()}"
    command = " ".join([sys.executable, "-m", "goalbot", "--db", str(db_path), "run", f"'{GOAL}'", "--url",
                        f"{site.url}/login", "--no-tui", "--await-attach", "--base-url", model.base_url, "--model",
                        "scripted", "2>", str(tmp_path / "run.log"), "&"])
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO), "bash --norc --noprofile")
    try:
        tmux("send-keys", "-t", session, command, "Enter")
        session_id = _running_session(db_path, 60)
        wait_until(lambda: rows(db_path, "select 1 from events where session_id = ? and type = 'PLAN_PROPOSED'",
                                session_id), 60, "the plan waiting for attach")
        tmux("send-keys", "-t", session, "jobs", "Enter")
        # `jobs` answers "[1]+  Running …" (or "Stopped"); the command line itself says "goalbot --db" too
        screen = wait_for(session, "]+ ")
        assert "Stopped" not in screen and "Running" in screen, screen
        StoreSteering(db_path, session_id).send("approve")  # as `goalbot attach` does
        wait_until(lambda: rows(db_path, "select status from sessions where id = ? and status = 'ok'", session_id),
                   120, "the run to end well")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_attach_footer_at_120_columns_ends_cleanly(site, model_server, db_path: Path, reaped) -> None:
    run = _start_run(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)
    reaped.append(run)
    _running_session(db_path)
    session = f"goalbot-attach120-{os.getpid()}"
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}"]
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", "-c", str(REPO), *env,
         # A COLUMNS left in the tmux server's environment by whoever started it would win over the pane's size.
         f"env -u COLUMNS -u LINES {sys.executable} -m goalbot --db {db_path} attach; sleep 30")
    try:
        wait_for(session, "The plan waits for your approval")
        tmux("send-keys", "-t", session, "Escape")  # decide later: the run screen's own footer
        footer = wait_for(session, "^p palette").rstrip("\n").splitlines()[-1]
        # Every key whole, then the palette's hint: no key drawn under it, no letter left over.
        assert "s Stop" in footer and re.search(r"f2 Sessions\s+▏\^p palette$", footer.rstrip()), footer
        tmux("send-keys", "-t", session, "a")
        wait_for(session, " ok  ")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert run.wait(30) == 0

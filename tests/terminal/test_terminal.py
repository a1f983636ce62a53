"""`goalbot demo` in a real terminal (tmux): the dashboard appears, the plan is approved with a
key, the run finishes, and the process exits cleanly on q."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, rows, wait_until
from tmux_kit import exit_code, tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_demo_in_tmux(db_path: Path, tmp_path: Path) -> None:
    session = f"goalbot-test-{os.getpid()}"
    marker = tmp_path / "exit-code"
    command = (f"{sys.executable} -m goalbot --db {db_path} demo; echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", "-e", "TERM=xterm-256color"]
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", str(REPO), *env, command)
    try:
        screen = wait_for(session, "The plan waits for your approval")
        assert "Sign in with the demo account" in screen
        tmux("send-keys", "-t", session, "a")
        screen = wait_for(session, " ok  ")
        assert "progress 100%" in screen and "step 2/20" in screen
        tmux("send-keys", "-t", session, "q")
        assert exit_code(marker) == "0"
        after = tmux("capture-pane", "-p", "-t", session)
        assert "dark mode on for: demo@example.com" in after
        assert "Traceback" not in after
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


def test_no_tui_asks_for_approval_at_the_prompt(site, model_server, db_path: Path, tmp_path: Path) -> None:
    from kit import demo_script

    model = model_server(demo_script())
    session = f"goalbot-prompt-{os.getpid()}"
    marker = tmp_path / "exit-code"
    command = (f"{sys.executable} -m goalbot --db {db_path} run 'sign in and turn on dark mode' "
               f"--url {site.url}/login --no-tui --base-url {model.base_url} --model scripted; "
               f"echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}"]
    tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", str(REPO), *env, command)
    try:
        wait_for(session, "Approve this plan?")
        assert site.state.snapshot()["signed_in"] == []
        # The planner's GOAL_STATUS follows its plan at once: it waits for the answer, off the prompt line.
        wait_until(lambda: db_path.exists() and rows(db_path, "select 1 from events where type = 'GOAL_STATUS'"),
                   60, "the plan's GOAL_STATUS stored")
        screen = [line for line in tmux("capture-pane", "-p", "-t", session).splitlines() if line.strip()]
        assert screen[-1].startswith("Approve this plan?") and screen[-1].rstrip().endswith("feedback]"), screen
        tmux("send-keys", "-t", session, "y", "Enter")
        wait_for(session, "TASK_OK")
        after = tmux("capture-pane", "-p", "-t", session)
        assert "GOAL_STATUS" in after.split("Approve this plan?")[1]  # held, then printed after the answer
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    approved = rows(db_path, "select data from events where type = 'PLAN_APPROVED'")
    assert '"by": "user"' in approved[0]["data"]


def test_no_tui_asks_before_going_over_the_budget(db_path: Path, tmp_path: Path) -> None:
    session = f"goalbot-budget-{os.getpid()}"
    marker = tmp_path / "exit-code"
    command = (f"{sys.executable} -m goalbot --db {db_path} demo --no-tui --yes --max-calls 3; "
               f"echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}"]
    tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", str(REPO), *env, command)
    try:
        wait_for(session, "3 were allowed (--max-calls 3 at a time). Allow as much again? [y")
        tmux("send-keys", "-t", session, "y", "Enter")
        wait_for(session, "TASK_OK")
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    stored = [r["type"] for r in rows(db_path, "select type from events order by seq")]
    assert stored.count("APPROVAL_GRANTED") == 1 and stored.count("TASK_RESUME") == 1
    assert rows(db_path, "select status, model_calls from sessions")[0]["status"] == "ok"

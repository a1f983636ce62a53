"""`goalbot` alone: the dashboard asks for a goal, runs it, and remembers it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, demo_script, rows
from dashboard_kit import on_top, starter, text, until
from goalbot.agents.session import Status
from storage.recorder import Recorder
from tmux_kit import exit_code, tmux, wait_for
from tui.app import GoalbotApp
from tui.widgets.goal_input import GoalInput


async def test_type_a_goal_run_it_and_find_it_again_with_up(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["planner"] *= 2
    script["navigator"] *= 2
    script["validator"] *= 2
    recorders: list[Recorder] = []
    app = GoalbotApp(db_path=db_path, starter=starter(model_server(script), db_path, recorders),
                     history=["an older goal"])
    goal = f"sign in and turn on dark mode at {site.url}/login"
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            box = app.run_screen.query_one(GoalInput)
            assert box.has_focus
            await pilot.press("up")
            assert box.value == "an older goal"
            await pilot.press("down")
            assert box.value == ""
            await pilot.press(*goal, "enter")
            await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
            assert not box.display
            await pilot.press("a")
            await until(pilot, lambda: app.result is not None and box.display, "the run to end")
            assert app.result.status is Status.OK and " ok " in text(app, "#status")
            await until(pilot, lambda: box.has_focus, "the goal box, ready for the next goal")
            await pilot.press("up")
            assert box.value == goal
            await pilot.press("up")
            assert box.value == "an older goal"
            await pilot.press("ctrl+c")  # nothing runs: Ctrl-C leaves
    finally:
        for recorder in recorders:
            recorder.close()
    assert rows(db_path, "select goal, status from sessions")[0]["status"] == "ok"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_goalbot_alone_in_a_real_terminal(site, model_server, db_path: Path, tmp_path: Path) -> None:
    model = model_server(demo_script())
    session, marker = f"goalbot-alone-{os.getpid()}", tmp_path / "exit-code"
    command = f"{sys.executable} -m goalbot --db {db_path} --images none; echo $? > {marker}; sleep 30"
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", "-e", "TERM=xterm-256color",
           "-e", f"OPENAI_BASE_URL={model.base_url}", "-e", "GOALBOT_MODEL=scripted"]
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", str(REPO), *env, command)
    tmux("resize-window", "-t", session, "-x", "160", "-y", "45")  # wide: the Screen panel is shown
    try:
        wait_for(session, "Type a goal and press Enter")
        tmux("send-keys", "-t", session, "-l", f"sign in and turn on dark mode on {site.url}/login")
        tmux("send-keys", "-t", session, "Enter")
        wait_for(session, "The plan waits for your approval")
        tmux("send-keys", "-t", session, "a")
        screen = wait_for(session, " ok  ")
        assert "images off" in screen, screen
        tmux("send-keys", "-t", session, "C-c")  # the goal box has the keys; Ctrl-C leaves
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}

"""The plan dialog in a real 160×50 terminal (tmux): edits left with Esc are what the plan panel
shows, and after a rejected plan the new one is numbered from 1, as the run counts its steps."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, answer, call, demo_script
from tmux_kit import tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
GOAL = "sign in and turn on dark mode"


def _plan_panel(screen: str) -> str:
    """The plan panel's own column, left of the step log, its wrapped lines joined."""
    lines = screen.splitlines()
    top = next(n for n, line in enumerate(lines) if "Plan v" in line)
    column: list[str] = []
    for line in lines[top + 1:]:
        if line.startswith("╰") or not line.startswith("│"):
            break
        column.append(line[1:line.index("│", 1)].strip())
    return " ".join(column)


def test_esc_edits_and_a_rejected_plan_as_the_plan_panel_shows_them(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["planner"].append(answer(call("plan", observation="sign-in page", steps=[
        "Sign in as demo@example.com", "Turn on the dark mode switch in the settings and save",
    ], progress_percent=0, confidence=0.8)))
    model = model_server(script)
    session = f"goalbot-plan-{os.getpid()}"
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO),
         "-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}",
         f"env -u COLUMNS -u LINES {sys.executable} -m goalbot --db {db_path} run '{GOAL}' --url {site.url}/login "
         f"--base-url {model.base_url} --model scripted; sleep 30")
    try:
        wait_for(session, "The plan waits for your approval")
        # In one burst, as a paste over SSH comes: e opens the field, and Ctrl+U, the words and
        # Enter reach it and act in their order.
        tmux("send-keys", "-t", session, "e", "C-u", "Sign in as the demo account", "Enter")
        wait_for(session, "Sign in as the demo account")
        tmux("send-keys", "-t", session, "Escape")  # later, keeping the edit
        screen = wait_for(session, "your edits, not approved yet")
        panel = _plan_panel(screen)
        assert "1. Sign in as the demo account" in panel and "Sign in with the demo account" not in panel, panel
        tmux("send-keys", "-t", session, "r")
        wait_for(session, "What should the planner do differently")
        tmux("send-keys", "-t", session, "-l", "name the account")
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "Sign in as demo@example.com")
        panel = _plan_panel(screen)
        assert "○ 1. Sign in as demo@example.com" in panel and "3." not in panel, panel
        tmux("send-keys", "-t", session, "a")
        wait_for(session, "Session over", 120)
        tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)

"""goalbot at 80×24 in a real terminal (tmux): the footers keep the keys that matter most, the
step log keeps most of each message, and the bare dashboard says what to do and how to leave."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO
from tmux_kit import tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _start(name: str, command: str) -> str:
    session = f"goalbot-80-{name}-{os.getpid()}"
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", str(REPO),
         "-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", command)
    return session


def _footer(screen: str) -> str:
    return screen.rstrip("\n").splitlines()[-1]


def test_the_demo_at_80_columns_keeps_its_keys_and_its_words(db_path: Path, chromium: None) -> None:
    session = _start("demo", f"{sys.executable} -m goalbot --db {db_path} demo; sleep 30")
    try:
        screen = wait_for(session, "The plan waits for your approval")
        footer = _footer(wait_for(session, "Later"))
        assert all(key in footer for key in ("Approve", "Reject", "Later")), footer
        tmux("send-keys", "-t", session, "a")
        screen = wait_for(session, "TASK_OK", seconds=120)
        footer = _footer(screen)
        assert "Quit" in footer and "Keys" in footer and "palettee" not in footer, footer
        # Each row keeps most of its message: the first action's whole argument is there.
        assert 'type(text="demo@example.com"' in screen, screen
        tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_the_bare_dashboard_says_what_to_do_and_how_to_leave(db_path: Path) -> None:
    session = _start("bare", f"{sys.executable} -m goalbot --db {db_path}; echo LEFT; sleep 30")
    try:
        screen = wait_for(session, "type one above and press Enter")
        assert "step 0/?" not in screen and "Quit" in _footer(screen), screen
        tmux("send-keys", "-t", session, "C-q")  # q would be typed into the goal
        wait_for(session, "LEFT")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)

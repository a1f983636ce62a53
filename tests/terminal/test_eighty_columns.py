"""goalbot at 80×24 in a real terminal (tmux): the footers keep the keys that matter most, the
step log keeps most of each message, and the bare dashboard says what to do and how to leave."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, wait_until
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
        # Each row keeps most of its message: a typing's whole arguments are there. Read while the
        # sign-in's rows are in view: by the end, the second step and its pace lines may have
        # scrolled them away.
        typing = re.compile(r'ACT_OK +type\(text="[^"]+", index=\d+\)')
        wait_until(lambda: typing.search(tmux("capture-pane", "-p", "-t", session)), 120, "a typing's whole row")
        screen = wait_for(session, "TASK_OK", seconds=120)
        footer = _footer(screen)
        assert "Quit" in footer and "Keys" in footer and "palettee" not in footer, footer
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


def test_at_80_columns_pause_says_resume_and_the_end_leaves_the_status_line_readable(db_path: Path) -> None:
    session = _start("pause", f"{sys.executable} -m goalbot --db {db_path} demo; sleep 30")
    try:
        wait_for(session, "The plan waits for your approval")
        tmux("send-keys", "-t", session, "a")
        wait_for(session, "step 1/20")
        tmux("send-keys", "-t", session, "p")
        footer = _footer(wait_for(session, "p Resume"))
        assert "Pause" not in footer and footer.rstrip().endswith("f2 Sessions"), footer  # whole, and what p does now
        tmux("send-keys", "-t", session, "p")
        screen = wait_for(session, "Session over", seconds=120)
        status = screen.rstrip("\n").splitlines()[-2]
        assert "ok" in status and "calls" in status and "tokens" in status, screen  # no toast over it
        tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_a_replay_at_80_columns_keeps_its_session_and_its_keys(db_path: Path) -> None:
    from dashboard_kit import store_fixture

    stored = store_fixture(db_path, "demo")
    session = _start("replay", f"{sys.executable} -m goalbot --db {db_path} replay {stored}; sleep 30")
    try:
        screen = wait_for(session, "paused")
        assert stored in screen.splitlines()[0], screen
        footer = _footer(screen)
        assert "q Quit" in footer and footer.rstrip().endswith("f2 Sessions"), footer
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_at_80_columns_the_policy_field_says_what_it_is_and_its_error_is_read_whole(db_path: Path) -> None:
    session = _start("policy", f"{sys.executable} -m goalbot --db {db_path} demo; sleep 30")
    try:
        wait_for(session, "The plan waits for your approval")
        tmux("send-keys", "-t", session, "p")
        screen = wait_for(session, "Choice policies, as JSON")
        assert "{}" not in screen, screen  # an empty field shows its example, not a bare {}
        bad = '{"front": {"hard": [{"field": "row", "op": "like", "value": "A"}]}}'
        tmux("send-keys", "-t", session, "-l", bad)
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "like")
        said = " ".join(line.strip(" │█▊▎") for line in screen.splitlines())
        assert "unknown operator 'like'" in " ".join(said.split()), screen  # wrapped, never cut at the edge
        tmux("send-keys", "-t", session, "a")
        wait_for(session, "Session over", 120)
        tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)

"""Running a command in a real terminal (tmux) and reading its screen."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for(session: str, text: str, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.3)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def exit_code(marker: Path, seconds: float = 20) -> str:
    """What the command wrote to `marker` when it ended (the tmux pane outlives it)."""
    deadline = time.monotonic() + seconds
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return marker.read_text().strip()

"""Running a command in a real terminal (tmux) and reading its screen."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kit import wait_until


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for(session: str, text: str, seconds: float = 60) -> str:
    seen = [""]

    def shows() -> str | None:
        seen[0] = tmux("capture-pane", "-p", "-t", session)
        return seen[0] if text in seen[0] else None

    try:
        return str(wait_until(shows, seconds, f"{text!r} on the screen", every=0.3))
    except AssertionError:
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{seen[0]}") from None


def exit_code(marker: Path, seconds: float = 20) -> str:
    """What the command wrote to `marker` when it ended (the tmux pane outlives it)."""
    wait_until(lambda: marker.exists() and marker.read_text().strip(), seconds, "the command ending")
    return marker.read_text().strip()

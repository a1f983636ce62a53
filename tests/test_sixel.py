"""Sixel in a terminal that has it: xterm as a VT340 on Xvfb answers the dashboard's question, and
the screenshot goes out as sixel; `--images halfcell` draws it with blocks instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kit import demo_script, rows, run_goal, xvfb
from dashboard_kit import GOAL

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("xterm", "Xvfb", "script")), reason="xterm, Xvfb or script missing")


def _output_in_xterm(display: str, command: str, typescript: Path, until: bytes, seconds: float = 40) -> bytes:
    """Runs `command` in xterm -ti vt340 and returns what it wrote to the terminal, once `until` shows."""
    terminal = subprocess.Popen(
        ["xterm", "-ti", "vt340", "-geometry", "150x45", "-e", f"script -q -c '{command}' {typescript}"],
        env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            written = typescript.read_bytes() if typescript.exists() else b""
            if until in written:
                time.sleep(0.5)
                return typescript.read_bytes()
            time.sleep(0.2)
        raise AssertionError(f"{until!r} never came; the terminal got {len(written)} bytes")
    finally:
        terminal.terminate()
        terminal.wait(10)


def test_replay_draws_sixel_in_a_vt340_and_blocks_on_request(site, model_server, db_path: Path, tmp_path: Path) -> None:
    run_goal(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    goalbot = f"{sys.executable} -m goalbot"
    with xvfb("1600x1000x24") as display:
        sixel = _output_in_xterm(display, f"{goalbot} --db {db_path} replay {session_id}",
                                 tmp_path / "sixel.out", until=b"\x1bP0;0;0q")
        assert b"#" in sixel.split(b"\x1bP0;0;0q", 1)[1][:200]  # colour registers: a picture follows
        blocks = _output_in_xterm(display, f"{goalbot} --db {db_path} --images halfcell replay {session_id}",
                                  tmp_path / "halfcell.out", until="▀".encode())
        assert b"\x1bP0;0;0q" not in blocks

"""The manual's recipe try-out, pasted line by line as a newcomer would: the demo serves at the
same address each time, the recording run keeps a recipe, and its rerun needs no model."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from kit import REPO, free_port_pair, rows, wait_until


def _block() -> list[str]:
    page = (REPO / "docs" / "guide" / "recipes.md").read_text(encoding="utf-8")
    block = page.split("<!-- recipe-tryout -->", 1)[1].split("<!-- /recipe-tryout -->", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("```")]


def test_the_readme_recipe_block_works_pasted_line_by_line(db_path: Path, chromium: None) -> None:
    lines = _block()
    assert lines[0].endswith("&") and lines[-1] == "kill %1", lines
    port = free_port_pair()
    # Only the ports move: this machine may have 8765 taken; the lines are the manual's.
    moved = [line.replace("8765", str(port)).replace("8766", str(port + 1)) for line in lines]
    moved[0] = moved[0].replace("--serve-only", f"--serve-only --port {port}")
    env = {**os.environ, "GOALBOT_DB": str(db_path), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    server = subprocess.Popen(moved[0].rstrip("& "), shell=True, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert server.stdout is not None
        wait_until(lambda: "Ctrl-C" in server.stdout.readline(), 60, "the demo to serve")
        for line in moved[1:-1]:
            done = subprocess.run(line, shell=True, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (line, done.stdout, done.stderr)
            assert "does not list the model" not in done.stdout + done.stderr, line
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the block's `kill %1`; its exit code: test_commands.py
        server.wait(90)
    shown = subprocess.run(moved[2], shell=True, cwd=REPO, env=env, capture_output=True, text=True).stdout
    assert shown.count('click button "Sign in"') == 1 and shown.count('click button "Save"') == 1, shown
    rerun = rows(db_path, "select status, model_calls, finish_reason from sessions order by started_at desc limit 1")[0]
    assert rerun["status"] == "ok" and rerun["model_calls"] == 0, dict(rerun)
    assert re.search(r"recipe darkmode v1 ran as recorded", rerun["finish_reason"] or ""), dict(rerun)

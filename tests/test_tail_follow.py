"""`goalbot tail -f` follows a session that another process is running."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO, demo_script, run_cli


def test_follow_sees_another_process_run(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    follower = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "tail", "-f"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=dict(os.environ),
    )
    try:
        time.sleep(1.0)
        run = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode",
                      "--url", f"{site.url}/login", "--no-tui", "--yes",
                      "--base-url", model.base_url, "--model", "scripted")
        assert run.returncode == 0, run.stderr
        time.sleep(1.5)  # the follower polls a few times a second
    finally:
        follower.terminate()
        out, err = follower.communicate(timeout=10)
    lines = out.strip().splitlines()
    assert "Traceback" not in err
    assert "TASK_START" in lines[0]
    assert "TASK_OK" in lines[-1]
    assert sum("STEP_OK" in line for line in lines) == 2

"""`goalbot tail -f` follows a session that another process is running."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from kit import REPO, demo_script, rows, run_cli, wait_until


def test_follow_sees_another_process_run(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    follower = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "tail", "-f"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=dict(os.environ),
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(follower.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        # Following starts by making the store: from then on, every event counts.
        wait_until(lambda: rows(db_path, "pragma user_version")[0][0] > 0, 60, "tail -f opening the store")
        run = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode",
                      "--url", f"{site.url}/login", "--no-tui", "--yes",
                      "--base-url", model.base_url, "--model", "scripted")
        assert run.returncode == 0, run.stderr
        wait_until(lambda: any("TASK_OK" in line for line in lines), 30, "tail -f printing the end")
    finally:
        follower.terminate()
        _, err = follower.communicate(timeout=10)
    lines = [line.rstrip("\n") for line in lines]
    assert "Traceback" not in err
    assert "TASK_START" in lines[0]
    assert "TASK_OK" in lines[-1]
    assert sum("STEP_OK" in line for line in lines) == 2

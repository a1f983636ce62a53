"""The commands a newcomer types first: `goalbot demo`, `goalbot doctor`, and where the store lives."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kit import rows, run_cli


def test_demo_without_a_terminal_runs_in_the_default_store() -> None:
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    assert "no terminal for the dashboard; printing events instead" in result.stderr
    assert "TASK_OK" in result.stdout
    assert "the site's own record: signed in: demo@example.com; dark mode on for: demo@example.com" in result.stdout
    assert "{" not in result.stdout.strip().splitlines()[-1]  # its last line is words, not a Python dict
    store = Path(os.environ["XDG_DATA_HOME"]) / "goalbot" / "goalbot.db"
    assert rows(store, "select status from sessions")[0]["status"] == "ok"
    listing = run_cli("sessions")
    assert "sign in and turn on dark mode" in listing.stdout


def test_goalbot_db_moves_the_store(tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere.db"
    result = run_cli("demo", "--no-tui", env={"GOALBOT_DB": str(moved)})
    assert result.returncode == 0, result.stderr
    assert rows(moved, "select count(*) as n from sessions")[0]["n"] == 1
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "goalbot" / "goalbot.db").exists()


def test_doctor_reports_browser_and_store(model_server, tmp_path: Path) -> None:
    model = model_server({})
    result = run_cli("--db", str(tmp_path / "g.db"), "doctor", "--base-url", model.base_url, "--model", "scripted")
    assert result.returncode == 0, result.stdout
    assert "ok    browser:" in result.stdout and "ok    store:" in result.stdout
    assert "API key not set" in result.stdout and "ok    model: the endpoint serves scripted" in result.stdout
    broken = run_cli("doctor", env={"GOALBOT_BROWSER": str(tmp_path / "missing")})
    assert broken.returncode == 1 and "FAIL  browser: the configured browser" in broken.stdout


def test_demo_serve_only_serves_the_site_and_the_model_until_ctrl_c(tmp_path: Path) -> None:
    import json
    import re
    import signal
    import subprocess
    import sys
    import urllib.request

    from kit import REPO

    server = subprocess.Popen([sys.executable, "-m", "goalbot", "demo", "--serve-only", "--port", "0"], cwd=REPO,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        said = "".join(server.stdout.readline() for _ in range(5))  # site, model, shop, a try, Ctrl-C
        site = re.search(r"site (http://\S+/login)", said)[1]
        model = re.search(r"scripted model (http://\S+)", said)[1]
        assert "Sign in" in urllib.request.urlopen(site, timeout=10).read().decode()
        listed = json.loads(urllib.request.urlopen(f"{model}/models", timeout=10).read())
        assert listed["data"] and "Ctrl-C" in said
        server.send_signal(signal.SIGINT)
        assert server.wait(90) == 0  # a loaded machine: the two servers stop one after the other
    finally:
        server.kill()
    assert "Traceback" not in server.stderr.read()


def test_demo_serve_only_started_in_the_background_stops_on_ctrl_c_and_on_kill() -> None:
    """`goalbot demo --serve-only &`: a shell starts it with Ctrl-C ignored; the signal sent the
    moment it says it is up still stops it, and so does `kill %1`."""
    import signal
    import subprocess

    from kit import REPO

    for number in (signal.SIGINT, signal.SIGTERM):
        shell = subprocess.Popen(
            ["sh", "-c", f"{sys.executable} -m goalbot demo --serve-only --port 0 & echo $! >&2; wait $!; echo $? >&2"],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert shell.stdout is not None and shell.stderr is not None
            demo = int(shell.stderr.readline())
            said = "".join(shell.stdout.readline() for _ in range(5))
            assert "Ctrl-C stops them" in said
            os.kill(demo, number)
            assert shell.wait(90) == 0
            assert shell.stderr.read().split()[-1] == "0", number  # the demo's own exit code
        finally:
            shell.kill()

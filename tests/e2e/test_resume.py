"""A run cut off with kill -9 is marked interrupted, and `goalbot resume ID` finishes it in the
same session from its last finished step: every event stored once, the report tells the story."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, answer, call, element, finished, plan, rows, run_cli, stored_events, verdict, wait_until

STEPS = ["Open the settings", "Open the Display section", "Turn on Dark mode", "Save the settings"]


def _cut_off_at_step_3(hardsite, model_server, db_path: Path) -> tuple[str, list[dict]]:
    """A run killed with kill -9 while step 3 waits on the model: its session, and its events."""
    hardsite.reset()
    script = {
        "planner": [plan(*STEPS)],
        "navigator": [
            answer(call("click", index=element("Settings"))), finished(),
            answer(call("click", index=element("Display"))), finished(),
            {"fault": "hang", "seconds": 60},  # step 3 waits on the model: that is when the cut comes
            answer(call("click", index=element("Dark mode"))), finished(),
            answer(call("click", index=element("Save"))), finished(),
        ],
        "validator": [verdict(True, f"{s}: done") for s in STEPS] + [verdict(True, "dark mode saved")],
    }
    model = model_server(script)
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "turn on dark mode",
         "--url", hardsite.page("home"), "--no-tui", "--yes", "--base-url", model.base_url,
         "--model", "scripted"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: bool(rows(db_path, "select 1 from events where type = 'STEP_START' and step = 3")))
        wait_until(lambda: sum(r["role"] == "navigator" for r in model.requests) >= 5)
        os.kill(run.pid, signal.SIGKILL)
        run.wait(10)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    return rows(db_path, "select id from sessions")[0]["id"], stored_events(db_path)


def test_kill_9_then_resume_finishes_with_every_event_once(hardsite, model_server, db_path: Path) -> None:
    session_id, before = _cut_off_at_step_3(hardsite, model_server, db_path)

    result = run_cli("--db", str(db_path), "resume", session_id, "--no-tui", "--yes")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr

    after = stored_events(db_path)
    assert after[:len(before)] == before  # history kept as it was…
    seqs = [r["seq"] for r in rows(db_path, "select seq from events order by seq")]
    assert seqs == list(range(1, len(seqs) + 1))  # …and nothing stored twice
    types = [e["type"] for e in after]
    assert types.count("TASK_START") == 1 and types.count("TASK_OK") == 1
    resumed = next(e for e in after if e["type"] == "TASK_RESUME")
    assert resumed["resumed"] is True and resumed["remaining"] == STEPS[2:]
    passed = [e["description"] for e in after if e["type"] == "STEP_OK"]
    assert passed == STEPS  # steps 1 and 2 once, before the cut; 3 and 4 after it
    starts = [e["step"] for e in after if e["type"] == "STEP_START"]
    assert starts == sorted(set(starts))  # the cut-off step is run again under a new number
    assert hardsite.posted["display"] == {"dark": True}
    session = rows(db_path, "select status, steps from sessions")[0]
    assert session["status"] == "ok"

    report = run_cli("--db", str(db_path), "report", session_id)
    assert "cut off here and resumed" in report.stdout
    assert "- Result: ok" in report.stdout


def test_only_an_interrupted_session_can_be_resumed(site, model_server, db_path: Path) -> None:
    from kit import demo_script, run_goal

    run_goal(db_path, model_server(demo_script()), f"{site.url}/login", "sign in and turn on dark mode")
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    done = run_cli("--db", str(db_path), "resume", session_id, "--no-tui", "--yes")
    assert done.returncode == 2 and "is ok, not interrupted" in done.stderr
    missing = run_cli("--db", str(db_path), "resume", "nope", "--no-tui", "--yes")
    assert missing.returncode == 2 and "no session nope" in missing.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_resume_in_the_dashboard_shows_the_goal_and_the_whole_plan(hardsite, model_server, db_path: Path,
                                                                     tmp_path: Path) -> None:
    from tmux_kit import exit_code, tmux, wait_for

    session_id, _ = _cut_off_at_step_3(hardsite, model_server, db_path)
    session, marker = f"goalbot-resume-{os.getpid()}", tmp_path / "exit-code"
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(REPO),
         "-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}",
         f"env -u COLUMNS -u LINES {sys.executable} -m goalbot --db {db_path} resume {session_id} --yes; "
         f"echo $? > {marker}; sleep 30")
    try:
        screen = wait_for(session, "Session over", 120)
        assert "Goal: turn on dark mode" in screen and "no goal yet" not in screen, screen
        assert all(step in screen for step in STEPS), screen  # the whole plan, the steps done before the cut too
        tmux("send-keys", "-t", session, "q")
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)

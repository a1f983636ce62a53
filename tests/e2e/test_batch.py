"""`goalbot batch JOBS.jsonl`: many goals and recipe reruns, unattended, each a stored session in one
store; the batch kept there too, read back by `batch status`, and a batch cut off (its coordinator
killed) resumed with only what was not done."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kit import REPO, action_gaps, finished, plan, rows, run_cli, verdict, wait_until
from hardsite.server import HardSite
from seats_kit import record_seats

DEAD = "http://127.0.0.1:9/v1"


def _jobs(tmp_path: Path, *jobs: dict) -> Path:
    path = tmp_path / "jobs.jsonl"
    path.write_text("# tonight's reruns\n" + "\n".join(json.dumps(job) for job in jobs) + "\n")
    return path


def test_goals_and_reruns_run_unattended_each_a_stored_session(hardsite: HardSite, model_server, db_path: Path,
                                                                tmp_path: Path) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    model = model_server({"planner": [plan("Read the seats")], "navigator": [finished(True, "read")],
                          "validator": [verdict(True, "read")] * 2})
    jobs = _jobs(tmp_path, {"recipe": "seats", "vars": {"MAX": "55"}}, {"recipe": "seats", "vars": {"MAX": "60"}},
                 {"goal": "read the seats", "url": hardsite.page("seat-picker")},
                 {"recipe": "seats", "vars": {"MAX": "1"}})  # nothing under 1: no candidate, so it fails
    result = run_cli("--db", str(db_path), "batch", str(jobs), "--workers", "2", "--json", "--trace", "failed",
                     "--base-url", model.base_url, "--model", "scripted", timeout=300)
    assert result.returncode == 1, result.stderr  # one job failed
    ended = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted((e["job"], e["status"]) for e in ended) == [(1, "ok"), (2, "ok"), (3, "ok"), (4, "cancelled")]
    batch = ended[0]["batch"]
    sessions = {e["session"] for e in ended}
    stored = {r["id"] for r in rows(db_path, "select id from sessions")}
    assert sessions <= stored and len(sessions) == 4
    status = run_cli("--db", str(db_path), "batch", "status", batch)
    assert status.returncode == 1
    lines = status.stdout.splitlines()
    assert lines[0].split() == ["JOB", "STATUS", "CALLS", "COST", "TIME", "SESSION", "WHAT"]
    assert "rerun seats MAX=60" in lines[2] and " ok " in lines[2]
    assert "no candidate is left" in lines[4]  # the table says why a job did not end well
    figures = json.loads(run_cli("--db", str(db_path), "stats", "--batch", batch, "--json").stdout)
    assert figures["runs"] == 4 and figures["succeeded"] == 0.75 and figures["reruns"] == 3
    # With --trace failed, the one that did not end well kept a Playwright trace for whoever reads
    # why; the others none.
    traced = {r["session_id"] for r in rows(db_path, "select session_id from artifacts where kind = 'trace'")}
    failed = next(e["session"] for e in ended if e["job"] == 4)
    assert traced == {failed}
    # It ends on a picture of its page, though nobody watched; the jobs that ended well took none.
    looks = rows(db_path, "select session_id, data from events where type = 'OBSERVATION' order by seq")
    assert json.loads([look for look in looks if look["session_id"] == failed][-1]["data"])["screenshot"]
    shot = {r["session_id"] for r in rows(db_path, "select session_id from artifacts where kind = 'screenshot'")}
    assert shot == {failed}
    written = tmp_path / "why.zip"
    opened = run_cli("--db", str(db_path), "trace", failed, "--out", str(written))
    assert opened.returncode == 0, opened.stderr
    with zipfile.ZipFile(written) as trace:
        assert any(name.endswith(".trace") for name in trace.namelist())  # what `playwright show-trace` reads
    report = run_cli("--db", str(db_path), "report", failed).stdout
    assert f"`goalbot trace {failed}`" in report
    no_display = run_cli("--db", str(db_path), "trace", failed)
    assert no_display.returncode == 0 and "playwright show-trace" in no_display.stderr
    none_kept = run_cli("--db", str(db_path), "trace", next(e["session"] for e in ended if e["job"] == 1))
    assert none_kept.returncode == 2 and "kept no trace" in none_kept.stderr


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "jobs.jsonl:2"),
    ('{"goal": "x", "recipe": "y"}', 'one of the two'),
    ('{"recipe": "seats", "vars": {"MAX": 5}}', "vars.MAX"),
    ('{"recipe": "seats", "when": "now"}', "jobs.jsonl:2: when is not a field goalbot knows"),
])
def test_a_bad_jobs_file_is_refused_in_one_line_before_anything_runs(db_path: Path, tmp_path: Path, line: str,
                                                                     said: str) -> None:
    path = tmp_path / "jobs.jsonl"
    path.write_text('{"recipe": "seats"}\n' + line + "\n")
    result = run_cli("--db", str(db_path), "batch", str(path))
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not db_path.exists()


def test_a_batch_cut_off_resumes_with_only_what_was_not_done(hardsite: HardSite, model_server, db_path: Path,
                                                             tmp_path: Path) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    jobs = _jobs(tmp_path, *({"recipe": "seats", "vars": {"MAX": str(50 + n)}} for n in range(4)))
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", str(jobs), "--workers", "1",
         "--base-url", DEAD], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=REPO, env=dict(os.environ))
    try:
        wait_until(lambda: rows(db_path, "select count(*) as n from batch_jobs where status = 'ok'")[0]["n"] >= 1
                   if db_path.exists() else False, 120, "a first job done")
    finally:
        coordinator.send_signal(signal.SIGKILL)  # cut off: no cleanup of its own
        coordinator.wait(30)
    batch = rows(db_path, "select id from batches")[0]["id"]
    done_before = {r["n"]: r["session_id"] for r in rows(db_path, "select n, session_id from batch_jobs "
                                                                   "where status = 'ok'")}
    resumed = run_cli("--db", str(db_path), "batch", "resume", batch, "--base-url", DEAD, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    after = rows(db_path, "select n, status, session_id, attempts from batch_jobs order by n")
    assert [r["status"] for r in after] == ["ok"] * 4
    for r in after:
        if r["n"] in done_before:  # what was done was not run again
            assert r["session_id"] == done_before[r["n"]] and r["attempts"] == 1


def test_the_pace_per_site_holds_across_the_jobs_of_a_batch(hardsite: HardSite, model_server, db_path: Path,
                                                            tmp_path: Path) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    jobs = _jobs(tmp_path, *({"recipe": "seats", "vars": {"MAX": max_}} for max_ in ("55", "60", "55", "60")))
    result = run_cli("--db", str(db_path), "batch", str(jobs), "--workers", "2", "--json", "--base-url", DEAD,
                     "--min-interval", "1.5", "--burst", "1", timeout=300)
    assert result.returncode == 0, result.stderr
    sessions = {json.loads(line)["session"] for line in result.stdout.splitlines()}
    # Two jobs at once on one site: still no two actions on it closer than the pace.
    # The pace reserves each start ahead; a start a loaded machine makes late shortens the gap to the
    # next by that lateness (a few tenths at most), where no pace would leave none at all.
    gaps = action_gaps(db_path, sessions)
    assert len(gaps) >= 3 and min(gaps) >= 1.2, gaps

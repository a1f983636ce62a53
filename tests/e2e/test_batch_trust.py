"""A batch job runs once: a reader of --json that leaves early (`| head -1`) stops the lines, never
the record of each job's end, and `batch resume` runs nothing that already ended — a job whose
session ended but whose end was never written is settled from its session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hardsite.server import HardSite
from kit import REPO, finished, plan, rows, run_cli, verdict


def _model(model_server, jobs: int):  # type: ignore[no-untyped-def]
    return model_server({"planner": [plan("Read the seats")] * jobs, "navigator": [finished(True, "read")] * jobs,
                         "validator": [verdict(True, "read")] * (2 * jobs)})


def test_a_reader_that_leaves_early_leaves_no_job_unrecorded_and_resume_runs_nothing_twice(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    model = _model(model_server, 3)
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("".join(json.dumps({"goal": f"read the seats {n}", "url": hardsite.page("seat-picker")}) + "\n"
                            for n in range(3)))
    command = [sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", str(jobs), "--workers", "3", "--json",
               "--base-url", model.base_url, "--model", "scripted"]
    piped = subprocess.run(" ".join(f"'{part}'" for part in command) + " | head -1", shell=True, capture_output=True,
                           text=True, cwd=REPO, timeout=300, stdin=subprocess.DEVNULL)
    assert len(piped.stdout.splitlines()) == 1 and "Traceback" not in piped.stderr, piped.stderr
    batch_id = json.loads(piped.stdout)["batch"]
    # `head` has gone, yet every job's end was written, and each job ran once.
    ended = rows(db_path, "select n, status, session_id from batch_jobs where batch_id = ? order by n", batch_id)
    assert [(r["n"], r["status"]) for r in ended] == [(1, "ok"), (2, "ok"), (3, "ok")]
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 3
    resumed = run_cli("--db", str(db_path), "batch", "resume", batch_id, "--base-url", model.base_url, "--model",
                      "scripted")
    assert resumed.returncode == 0, resumed.stderr
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 3  # nothing ran again
    listed = run_cli("--db", str(db_path), "batch", "status")  # no batch named: the batches, to name one
    assert listed.returncode == 0 and batch_id in listed.stdout and "    3     3       0" in listed.stdout, listed.stdout


def test_resume_settles_a_job_whose_session_ended_before_its_end_was_written(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    model = _model(model_server, 2)
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"goal": "read the seats", "url": hardsite.page("seat-picker")}) + "\n")
    done = run_cli("--db", str(db_path), "batch", str(jobs), "--json", "--base-url", model.base_url, "--model",
                   "scripted", timeout=300)
    assert done.returncode == 0, done.stderr
    batch_id, session = json.loads(done.stdout)["batch"], json.loads(done.stdout)["session"]
    # As a coordinator killed between the job's end and writing it down leaves the job.
    conn = __import__("sqlite3").connect(db_path)
    with conn:
        conn.execute("update batch_jobs set status = 'running', ended_at = null where batch_id = ?", [batch_id])
    conn.close()
    resumed = run_cli("--db", str(db_path), "batch", "resume", batch_id, "--base-url", model.base_url, "--model",
                      "scripted")
    assert resumed.returncode == 0 and "job 1 had ended" in resumed.stderr, resumed.stderr
    assert [dict(r) for r in rows(db_path, "select status, session_id from batch_jobs")] == [
        {"status": "ok", "session_id": session}]
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 1


def test_a_batch_checks_every_job_before_its_first_browser_and_names_each_bad_line(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("\n".join(json.dumps(job) for job in (
        {"goal": "read the seats", "url": hardsite.page("seat-picker")},
        {"recipe": "nothing"},
        {"goal": "read the seats", "url": "file:///etc/passwd"},
        {"goal": "   "})) + "\n")
    model = _model(model_server, 1)
    done = run_cli("--db", str(db_path), "batch", str(jobs), "--base-url", model.base_url, "--model", "scripted")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "3 jobs of 4 cannot run; nothing was started" in done.stderr
    for n, why in ((2, "no recipe nothing"), (3, "not a web page"), (4, "the goal is empty")):
        assert f"{jobs}, job {n}: " in done.stderr and why in done.stderr
    assert model.requests == []
    # Nothing was started: no batch is stored (a refused batch need not even make the store).
    assert not db_path.exists() or rows(db_path, "select count(*) as n from batches")[0]["n"] == 0


def test_one_job_starts_one_slot(hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    model = _model(model_server, 1)
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"goal": "read the seats", "url": hardsite.page("seat-picker")}) + "\n")
    done = run_cli("--db", str(db_path), "batch", str(jobs), "--workers", "4", "--base-url", model.base_url,
                   "--model", "scripted", timeout=300)
    assert done.returncode == 0 and ": 1 job, 1 at once" in done.stderr, done.stderr

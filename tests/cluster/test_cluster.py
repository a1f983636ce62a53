"""`goalbot batch --broker` on a real redis-server and two real `goalbot worker` processes (Celery),
each with its own name and store as on two machines: every session lands live in the coordinator's
store; a worker lost mid-job loses nothing; a coordinator cut off resumes with only what was left;
a risky job asks on the coordinator; and nothing unsealed gets through."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path


from cluster_kit import KEY, Redis, Workers, cluster_env, replying
from hardsite.server import HardSite
from kit import REPO, action_gaps, finished, plan, rows, verdict, wait_until
from seats_kit import record_seats


def _jobs(tmp_path: Path, *jobs: dict) -> Path:
    path = tmp_path / "jobs.jsonl"
    path.write_text("\n".join(json.dumps(job) for job in jobs) + "\n")
    return path


def _coordinator(db_path: Path, jobs: Path, redis: Redis, *flags: str, key: str = KEY) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", str(jobs), "--broker", redis.url,
         "--json", *flags], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=REPO, env=cluster_env(GOALBOT_CLUSTER_KEY=key))


def _goal_model(model_server, latency_s: float = 0.0):  # type: ignore[no-untyped-def]
    return model_server({"planner": [plan("Read the seats")] * 3, "navigator": [finished(True, "read")] * 3,
                         "validator": [verdict(True, "read")] * 6, "server": {"latency_s": latency_s}})


def test_a_batch_on_two_workers_lands_live_in_the_coordinators_store(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    workers.model_url = _goal_model(model_server, latency_s=0.5).base_url
    workers.start("w1@east")
    workers.start("w2@west")
    follow = subprocess.Popen([sys.executable, "-m", "goalbot", "--db", str(db_path), "tail", "-f", "--json",
                               "-n", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, cwd=REPO)
    jobs = _jobs(tmp_path, {"recipe": "seats", "vars": {"MAX": "55"}}, {"goal": "read the seats",
                                                                         "url": hardsite.page("seat-picker")},
                 {"recipe": "seats", "vars": {"MAX": "60"}}, {"recipe": "seats", "vars": {"MAX": "1"}})
    coordinator = _coordinator(db_path, jobs, redis_server)
    try:
        # Live: a remote session is in this store while it still runs.
        wait_until(lambda: rows(db_path, "select id from sessions where status = 'running' and host like 'w%'"),
                   120, "a remote session running in the coordinator's store")
        out, err = coordinator.communicate(timeout=300)
    finally:
        coordinator.kill()
        follow.terminate()
    followed, _ = follow.communicate(timeout=30)
    assert coordinator.returncode == 1, err  # MAX=1 leaves no candidate: that job fails
    ended = {line["job"]: line for line in map(json.loads, out.splitlines())}
    assert {n: e["status"] for n, e in ended.items()} == {1: "ok", 2: "ok", 3: "ok", 4: "cancelled"}
    stored = {r["id"]: r for r in rows(db_path, "select id, host, status from sessions where host like 'w%'")}
    assert {e["session"] for e in ended.values()} == set(stored)
    assert {r["host"] for r in stored.values()} == {"w1@east", "w2@west"}  # both machines served
    for session_id in stored:
        kinds = [r["type"] for r in rows(db_path, "select type from events where session_id = ? order by seq",
                                         session_id)]
        assert kinds[0] == "TASK_START" and kinds[-1] in ("TASK_OK", "TASK_CANCEL"), kinds
    tailed = {json.loads(line)["session_id"] for line in followed.splitlines() if line.strip()}
    assert set(stored) <= tailed  # `tail -f` on the coordinator showed every remote session
    status = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", "status",
                             ended[1]["batch"]], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert "WORKER" in status.stdout.splitlines()[0] and "w2@west" in status.stdout + "w1@east"
    sessions = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "sessions"],
                              capture_output=True, text=True, cwd=REPO, timeout=60)
    assert all(session_id in sessions.stdout for session_id in stored)


def test_a_job_whose_worker_is_lost_runs_again_on_the_other_and_nothing_is_lost(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    hardsite.reset()
    workers.model_url = _goal_model(model_server, latency_s=2.0).base_url  # a job long enough to be cut
    workers.start("w1@east")
    jobs = _jobs(tmp_path, {"goal": "read the seats", "url": hardsite.page("seat-picker")})
    coordinator = _coordinator(db_path, jobs, redis_server)
    try:
        first = wait_until(lambda: rows(db_path, "select id from sessions where status = 'running'"), 120,
                           "the job running on w1")[0]["id"]
        workers.start("w2@west")
        workers.kill("w1@east")  # the machine is lost: the worker, its job's process and browser
        out, err = coordinator.communicate(timeout=300)
    finally:
        coordinator.kill()
    assert coordinator.returncode == 0, err
    ended = json.loads(out.splitlines()[-1])
    assert ended["status"] == "ok" and ended["worker"] == "w2@west" and ended["session"] != first
    cut = rows(db_path, "select status, finish_reason from sessions where id = ?", first)[0]
    assert cut["status"] == "interrupted" and "worker was lost" in cut["finish_reason"]
    tried = rows(db_path, "select attempt, worker, status, session_id from batch_attempts order by attempt")
    assert [(r["attempt"], r["worker"], r["status"]) for r in tried] == [(1, "w1@east", "interrupted"),
                                                                          (2, "w2@west", "ok")]
    assert [r["session_id"] for r in tried] == [first, ended["session"]]  # both sessions linked to the job
    assert rows(db_path, "select attempts, status from batch_jobs")[0]["attempts"] == 2


def test_a_coordinator_cut_off_resumes_with_only_what_was_left(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    workers.model_url = "http://127.0.0.1:9/v1"  # reruns need no model
    workers.start("w1@east")
    jobs = _jobs(tmp_path, *({"recipe": "seats", "vars": {"MAX": str(50 + n)}} for n in range(5)))
    coordinator = _coordinator(db_path, jobs, redis_server)
    try:
        wait_until(lambda: rows(db_path, "select 1 from batch_jobs where status = 'ok'") if db_path.exists()
                   else False, 120, "a first job done")
    finally:
        coordinator.send_signal(signal.SIGKILL)
        coordinator.wait(30)
    batch = rows(db_path, "select id from batches")[0]["id"]
    resumed = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", "resume", batch],
                             capture_output=True, text=True, cwd=REPO, env=cluster_env(), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    jobs_now = rows(db_path, "select n, status, attempts from batch_jobs order by n")
    assert [(r["status"], r["attempts"]) for r in jobs_now] == [("ok", 1)] * 5  # none ran twice
    assert len(rows(db_path, "select id from sessions where host = 'w1@east'")) == 5
    client = redis_server.client()
    assert [int(client.get(f"goalbot:batch:{batch}:job:{n}:attempts")) for n in range(1, 6)] == [1] * 5


def test_a_risky_job_asks_the_person_on_the_coordinator(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    from tui.steering import StoreSteering

    hardsite.reset()
    workers.model_url, job = replying(model_server, hardsite)
    workers.start("w1@east")
    jobs = _jobs(tmp_path, job)
    coordinator = _coordinator(db_path, jobs, redis_server, "--ask")
    try:
        asked = wait_until(lambda: rows(db_path, "select session_id from events where type = 'APPROVAL_REQUEST'")
                           if db_path.exists() else False, 120, "the GO question on the coordinator")
        session_id = asked[0]["session_id"]
        # Someone who can write to the broker but holds no key answers first: refused.
        redis_server.client().rpush(f"goalbot:session:{session_id}:commands", json.dumps(
            {"body": json.dumps({"session": session_id, "kind": "grant", "payload": {}, "by": "x"}), "mac": "0"}))
        wait_until(lambda: "refused an answer" in workers.log("w1@east"), 60, "the forged GO refused")
        assert hardsite.reached("/api/sync", "POST") == []  # nothing sent before the GO
        StoreSteering(db_path, session_id).send("grant")  # as `goalbot attach` does
        out, err = coordinator.communicate(timeout=180)
    finally:
        coordinator.kill()
    assert coordinator.returncode == 0, err
    assert hardsite.reached("/api/sync", "POST") == ["yes, see you"]
    kinds = [r["type"] for r in rows(db_path, "select type from events order by id")]
    assert "APPROVAL_GRANTED" in kinds, kinds


def test_the_pace_per_site_holds_across_workers(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    workers.model_url = "http://127.0.0.1:9/v1"
    for name in ("w1@east", "w2@west"):
        workers.start(name, "--min-interval", "1.5", "--burst", "1")
    jobs = _jobs(tmp_path, *({"recipe": "seats", "vars": {"MAX": max_}} for max_ in ("55", "60", "55", "60")))
    coordinator = _coordinator(db_path, jobs, redis_server)
    out, err = coordinator.communicate(timeout=300)
    assert coordinator.returncode == 0, err
    ended = [json.loads(line) for line in out.splitlines()]
    assert {e["worker"] for e in ended} == {"w1@east", "w2@west"}
    # Two workers, one site: no two actions on it closer than the pace, whichever worker ran them.
    # The pace reserves each start ahead; a start a loaded machine makes late shortens the gap to the
    # next by that lateness (a few tenths at most), where no pace would leave none at all.
    gaps = action_gaps(db_path, {e["session"] for e in ended})
    assert len(gaps) >= 3 and min(gaps) >= 1.2, gaps
    waited = rows(db_path, "select data from events where type = 'POLICY' and data like '%other runs act on%'")
    assert waited


def test_unsealed_jobs_and_answers_are_refused(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    from goalbot.cluster.broker import TASK, celery_app
    from goalbot.cluster.sealing import Seal

    hardsite.reset()
    workers.model_url = _goal_model(model_server).base_url
    workers.start("w1@east")
    forged = {"batch": "b20261126-000000-abcd", "n": 1, "job": {"goal": "buy everything", "url": hardsite.page("shop")}}
    app = celery_app(redis_server.url)
    app.send_task(TASK, args=[Seal("not the cluster's key at all").seal(forged)])
    app.send_task(TASK, args=[json.dumps({"body": json.dumps(forged), "mac": "0" * 64})])
    wait_until(lambda: workers.log("w1@east").count("refused a job") >= 2, 60, "both forged jobs refused")
    assert not Path(tmp_path / "w1@east.db").exists() or not rows(tmp_path / "w1@east.db", "select id from sessions")
    # A coordinator without the key, or with a short one, says so before anything is made.
    jobs = _jobs(tmp_path, {"goal": "read the seats"})
    refused = _coordinator(db_path, jobs, redis_server, key="short")
    _, err = refused.communicate(timeout=60)
    assert refused.returncode == 2 and "GOALBOT_CLUSTER_KEY" in err and not db_path.exists()

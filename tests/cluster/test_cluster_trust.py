"""Attacks on a batch's traffic through the broker, from a bare Redis client: a worker's sealed
reports copied into another batch's stream are refused there; a sealed order put back on the queue
runs once; and a broker that dies mid-batch is said in one line, with nothing lost."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path


from cluster_kit import KEY, Redis, Workers, cluster_env, replying
from hardsite.server import HardSite
from kit import REPO, finished, plan, rows, verdict, wait_until

QUEUE = "goalbot.jobs"


def _coordinator(db_path: Path, tmp_path: Path, redis: Redis, name: str, *jobs: dict,
                 flags: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(job) + "\n" for job in jobs))
    return subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", str(path), "--broker", redis.url, "--json",
         *flags],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env=cluster_env(GOALBOT_CLUSTER_KEY=KEY))


def _model(model_server, jobs: int = 3):  # type: ignore[no-untyped-def]
    return model_server({"planner": [plan("Read the seats")] * jobs, "navigator": [finished(True, "read")] * jobs,
                         "validator": [verdict(True, "read")] * (2 * jobs)})


def _batches(db_path: Path) -> list[str]:
    return [r["id"] for r in rows(db_path, "select id from batches order by created_at, id")] if db_path.exists() else []


def test_a_report_copied_into_another_batchs_stream_is_refused(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    hardsite.reset()
    job = {"goal": "read the seats", "url": hardsite.page("seat-picker")}
    workers.model_url = _model(model_server).base_url
    workers.start("w1@east")
    first = _coordinator(db_path, tmp_path, redis_server, "first", job)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    batch_1 = json.loads(out.splitlines()[-1])["batch"]
    workers.kill("w1@east")  # nobody runs the second batch's job: only copied reports could end it
    second = _coordinator(db_path, tmp_path, redis_server, "second", job)
    try:
        batch_2 = wait_until(lambda: [b for b in _batches(db_path) if b != batch_1], 60, "the second batch")[0]
        client = redis_server.client()
        for _entry, fields in client.xrange(f"goalbot:batch:{batch_1}:events"):
            client.xadd(f"goalbot:batch:{batch_2}:events", fields)
        wait_until(lambda: rows(db_path, "select stream_pos from batches where id = ?", batch_2)[0]["stream_pos"]
                   not in (None, "", "0-0"), 60, "the second coordinator to read the copies")
    finally:
        second.kill()
    _, said = second.communicate(timeout=30)
    assert f"sealed for batch {batch_1}" in said and "refused" in said, said
    job_2 = rows(db_path, "select status, session_id from batch_jobs where batch_id = ?", batch_2)[0]
    assert job_2["status"] != "ok" and job_2["session_id"] is None
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 1  # batch 1's, once


def test_a_sealed_order_put_back_on_the_queue_runs_once(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    from goalbot.cluster.broker import TASK, celery_app

    hardsite.reset()
    client = redis_server.client()
    coordinator = _coordinator(db_path, tmp_path, redis_server, "jobs",
                               {"goal": "read the seats", "url": hardsite.page("seat-picker")})
    try:
        # Taken off the broker by someone who can read it, before any worker has it.
        message = json.loads(wait_until(lambda: client.lrange(QUEUE, 0, -1), 60, "the order on the queue")[0])
        sealed = json.loads(base64.b64decode(message["body"]))[0][0]
        workers.model_url = _model(model_server).base_url
        workers.start("w1@east")
        out, err = coordinator.communicate(timeout=300)
    finally:
        coordinator.kill()
    assert coordinator.returncode == 0, err
    app = celery_app(redis_server.url)
    for _ in range(2):
        app.send_task(TASK, args=[sealed])  # replayed, twice
    wait_until(lambda: workers.log("w1@east").count("this copy of its order is not run") >= 2, 120,
               "both replays refused")
    assert len(rows(tmp_path / "w1@east.db", "select id from sessions")) == 1
    assert rows(db_path, "select count(*) as n from sessions")[0]["n"] == 1


def test_a_broker_killed_mid_batch_is_one_line_and_loses_nothing(
        hardsite: HardSite, db_path: Path, tmp_path: Path, redis_server: Redis) -> None:
    client = redis_server.client()
    coordinator = _coordinator(db_path, tmp_path, redis_server, "jobs",
                               {"goal": "read the seats", "url": hardsite.page("seat-picker")})
    try:
        wait_until(lambda: client.llen(QUEUE), 60, "the order on the queue")  # no worker: the batch waits
        redis_server.process.terminate()
        redis_server.process.wait(30)
        _out, err = coordinator.communicate(timeout=120)
    finally:
        coordinator.kill()
    assert coordinator.returncode == 2 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "stopped answering" in lines[-1] and "goalbot batch resume" in lines[-1] and len(lines) <= 4, err
    batch = _batches(db_path)[0]
    status = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", "status", batch],
                            capture_output=True, text=True, cwd=REPO, timeout=60)
    assert "read the seats" in status.stdout and "Traceback" not in status.stderr


def test_a_sealed_go_for_another_question_binds_to_nothing(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, workers: Workers, redis_server: Redis) -> None:
    from goalbot.cluster.orders import Answer
    from goalbot.cluster.sealing import Seal
    from tui.steering import StoreSteering

    hardsite.reset()
    workers.model_url, job = replying(model_server, hardsite)
    workers.start("w1@east")
    coordinator = _coordinator(db_path, tmp_path, redis_server, "jobs", job, flags=("--ask",))
    try:
        asked = wait_until(lambda: rows(db_path, "select session_id, seq from events where type = 'APPROVAL_REQUEST'")
                           if db_path.exists() else False, 120, "the GO question on the coordinator")
        session_id, question = asked[0]["session_id"], asked[0]["seq"]
        batch = _batches(db_path)[0]
        # Sealed with the cluster's own key, as a GO copied from an earlier question would be.
        stale = Answer(batch=batch, session=session_id, kind="grant", payload={}, question=question - 1)
        redis_server.client().rpush(f"goalbot:session:{session_id}:commands", Seal(KEY).seal(stale.model_dump()))
        wait_until(lambda: "a question it is not asking now" in workers.log("w1@east"), 60, "the stale GO refused")
        assert hardsite.reached("/api/sync", "POST") == []  # nothing sent on a GO meant for something else
        StoreSteering(db_path, session_id).send("grant")  # the person's own GO, through `goalbot attach`
        _out, err = coordinator.communicate(timeout=180)
    finally:
        coordinator.kill()
    assert coordinator.returncode == 0, err
    assert hardsite.reached("/api/sync", "POST") == ["yes, see you"]

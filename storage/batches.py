"""Batches in the store: each job of a `goalbot batch`, what it asks, how it ended and the session
that ran it — so `batch status` reads it from any login, and `batch resume` runs only what is
not done."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

DONE = ("ok", "failed", "cancelled")  # a job that ended, whichever way: resume leaves it alone
# The source of an eval's batch begins so: its pages were served by that eval alone, and are gone.
EVAL_SOURCE = "goalbot eval"


class JobRow(BaseModel):
    batch_id: str
    n: int
    spec: dict[str, Any]
    status: str
    session_id: str | None = None
    attempts: int = 0
    reason: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    model_calls: int = 0
    cost_usd: float | None = None
    worker: str | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_batch(db: sqlite_utils.Database, source: str, workers: int, specs: list[dict[str, Any]],
              broker: str | None = None) -> str:
    batch_id = datetime.now().strftime("b%Y%m%d-%H%M%S-") + secrets.token_hex(2)
    with db.conn:
        db.execute("insert into batches (id, created_at, source, workers, broker) values (?, ?, ?, ?, ?)",
                   [batch_id, _now(), source, workers, broker])
        for n, spec in enumerate(specs, 1):
            db.execute("insert into batch_jobs (batch_id, n, spec, status) values (?, ?, ?, 'pending')",
                       [batch_id, n, json.dumps(spec, ensure_ascii=False)])
    return batch_id


def jobs(db: sqlite_utils.Database, batch_id: str) -> list[JobRow]:
    found = db.execute(
        "select j.batch_id, j.n, j.spec, j.status, j.session_id, j.attempts, j.reason, j.started_at, j.ended_at, "
        "s.model_calls, s.cost_usd, j.worker from batch_jobs j left join sessions s on s.id = j.session_id "
        "where j.batch_id = ? order by j.n", [batch_id]).fetchall()
    return [JobRow(batch_id=r[0], n=r[1], spec=json.loads(r[2]), status=r[3], session_id=r[4], attempts=r[5],
                   reason=r[6], started_at=r[7], ended_at=r[8], model_calls=r[9] or 0, cost_usd=r[10],
                   worker=r[11])
            for r in found]


def listed(db: sqlite_utils.Database, limit: int = 50) -> list[tuple[str, str, int, int, int]]:
    """The newest batches: (id, created_at, jobs, ended ok, ended otherwise)."""
    if not db["batches"].exists():
        return []
    return [tuple(row) for row in db.execute(  # type: ignore[misc]
        "select b.id, b.created_at, count(j.n), coalesce(sum(j.status = 'ok'), 0), "
        "coalesce(sum(j.status in ('failed', 'cancelled')), 0) from batches b "
        "left join batch_jobs j on j.batch_id = b.id group by b.id order by b.created_at desc limit ?",
        [limit]).fetchall()]


def exists(db: sqlite_utils.Database, batch_id: str) -> bool:
    return db["batches"].exists() and db.execute("select 1 from batches where id = ?", [batch_id]).fetchone() is not None


def source_of(db: sqlite_utils.Database, batch_id: str) -> str | None:
    row = db.execute("select source from batches where id = ?", [batch_id]).fetchone()
    return row[0] if row else None


def cut_short(db: sqlite_utils.Database, batch_id: str, reason: str) -> None:
    """Every job not ended is ended as cancelled, saying `reason`: for a batch no resume could run.
    So are their sessions still marked running (their slots are gone): none is left for
    `goalbot resume` to offer against pages that ended with the batch."""
    with db.conn:
        db.execute("update sessions set status = 'cancelled', finish_reason = ?, ended_at = ? where status in "
                   "('running', 'interrupted') and id in (select session_id from batch_attempts where batch_id = ? "
                   "and status = 'running')", [reason, _now(), batch_id])
        db.execute("update batch_jobs set status = 'cancelled', reason = ?, ended_at = ? where batch_id = ? "
                   "and status not in ('ok', 'failed', 'cancelled')", [reason, _now(), batch_id])
        db.execute("update batch_attempts set status = 'cancelled' where batch_id = ? and status = 'running'",
                   [batch_id])


def broker_of(db: sqlite_utils.Database, batch_id: str) -> str | None:
    row = db.execute("select broker from batches where id = ?", [batch_id]).fetchone()
    return row[0] if row else None


def started(db: sqlite_utils.Database, batch_id: str, n: int) -> None:
    """A job of a batch on this machine starts; an attempt of it still running was cut off."""
    with db.conn:
        db.execute("update batch_attempts set status = 'interrupted' where batch_id = ? and n = ? "
                   "and status = 'running'", [batch_id, n])
        db.execute("update batch_jobs set status = 'running', attempts = attempts + 1, started_at = ?, "
                   "ended_at = null where batch_id = ? and n = ?", [_now(), batch_id, n])
        db.execute("insert or replace into batch_attempts (batch_id, n, attempt, status) select batch_id, n, attempts, "
                   "'running' from batch_jobs where batch_id = ? and n = ?", [batch_id, n])


def ended(db: sqlite_utils.Database, batch_id: str, n: int, status: str, session_id: str | None, reason: str) -> None:
    with db.conn:
        db.execute("update batch_jobs set status = ?, session_id = ?, reason = ?, ended_at = ? "
                   "where batch_id = ? and n = ?", [status, session_id, reason, _now(), batch_id, n])
        db.execute("update batch_attempts set status = ?, session_id = ? where batch_id = ? and n = ? and attempt = "
                   "(select attempts from batch_jobs where batch_id = ? and n = ?)",
                   [status, session_id, batch_id, n, batch_id, n])


# The remote side, applied inside the transaction that also moves the stream position.

def stream_pos(db: sqlite_utils.Database, batch_id: str) -> str:
    row = db.execute("select stream_pos from batches where id = ?", [batch_id]).fetchone()
    return str(row[0]) if row and row[0] else "0-0"


def set_stream_pos(db: sqlite_utils.Database, batch_id: str, position: str) -> None:
    db.execute("update batches set stream_pos = ? where id = ?", [position, batch_id])


def remote_started(db: sqlite_utils.Database, batch_id: str, n: int, attempt: int, worker: str, at: str) -> None:
    db.execute("update batch_jobs set status = 'running', attempts = max(attempts, ?), worker = ?, started_at = ?, "
               "ended_at = null where batch_id = ? and n = ? and status not in ('ok', 'failed', 'cancelled')",
               [attempt, worker, at, batch_id, n])
    db.execute("insert or ignore into batch_attempts (batch_id, n, attempt, worker, status) "
               "values (?, ?, ?, ?, 'running')", [batch_id, n, attempt, worker])


def remote_session(db: sqlite_utils.Database, batch_id: str, n: int, attempt: int, session_id: str) -> None:
    db.execute("update batch_attempts set session_id = ? where batch_id = ? and n = ? and attempt = ?",
               [session_id, batch_id, n, attempt])
    db.execute("update batch_jobs set session_id = ? where batch_id = ? and n = ? and attempts = ?",
               [session_id, batch_id, n, attempt])


def remote_ended(db: sqlite_utils.Database, batch_id: str, n: int, attempt: int, status: str,
                 session_id: str | None, reason: str, at: str) -> None:
    db.execute("update batch_attempts set status = ?, session_id = coalesce(?, session_id) "
               "where batch_id = ? and n = ? and attempt = ?", [status, session_id, batch_id, n, attempt])
    db.execute("update batch_jobs set status = ?, session_id = coalesce(?, session_id), reason = ?, ended_at = ? "
               "where batch_id = ? and n = ?", [status, session_id, reason, at, batch_id, n])


def remote_cut(db: sqlite_utils.Database, batch_id: str, n: int, attempt: int, why: str) -> str | None:
    """An attempt whose worker was lost: its session, if it had one, is marked interrupted."""
    row = db.execute("select session_id from batch_attempts where batch_id = ? and n = ? and attempt = ?",
                     [batch_id, n, attempt]).fetchone()
    db.execute("update batch_attempts set status = 'interrupted' where batch_id = ? and n = ? and attempt = ?",
               [batch_id, n, attempt])
    if row and row[0]:
        db.execute("update sessions set status = 'interrupted', finish_reason = ? where id = ? and status = 'running'",
                   [why, row[0]])
        return str(row[0])
    return None


def attempts(db: sqlite_utils.Database, batch_id: str) -> list[tuple[int, int, str | None, str | None, str | None]]:
    """Every attempt of every job: (job, attempt, worker, status, session)."""
    return [tuple(r) for r in db.execute(  # type: ignore[misc]
        "select n, attempt, worker, status, session_id from batch_attempts where batch_id = ? order by n, attempt",
        [batch_id]).fetchall()]


def eval_of_session(db: sqlite_utils.Database, session_id: str) -> str | None:
    """The `goalbot eval` command whose episode `session_id` was, if it was one."""
    if not db["batch_attempts"].exists():
        return None
    row = db.execute("select b.source from batch_attempts a join batches b on b.id = a.batch_id "
                     "where a.session_id = ? and b.source like ?", [session_id, EVAL_SOURCE + "%"]).fetchone()
    return str(row[0]) if row else None


def running_sessions(db: sqlite_utils.Database, batch_id: str) -> list[str]:
    return [r[0] for r in db.execute("select session_id from batch_jobs where batch_id = ? and status = 'running' "
                                     "and session_id is not null", [batch_id]).fetchall()]


def wired(db: sqlite_utils.Database, batch_id: str, n: int, session_id: str) -> None:
    """A local job's session, known as soon as it is wired: a resume finds how it ended."""
    with db.conn:
        remote_session(db, batch_id, n, _attempts_of(db, batch_id, n), session_id)


def _attempts_of(db: sqlite_utils.Database, batch_id: str, n: int) -> int:
    row = db.execute("select attempts from batch_jobs where batch_id = ? and n = ?", [batch_id, n]).fetchone()
    return int(row[0]) if row else 0


def settle_ended(db: sqlite_utils.Database, batch_id: str) -> list[int]:
    """Jobs not marked ended whose session did end (their end was never written: the batch was cut
    off between the two): marked as their session ended, so a resume never runs them again."""
    settled: list[int] = []
    with db.conn:
        for n, status, reason in db.execute(
                "select j.n, s.status, s.finish_reason from batch_jobs j join sessions s on s.id = j.session_id "
                "where j.batch_id = ? and j.status not in ('ok', 'failed', 'cancelled') "
                "and s.status in ('ok', 'failed', 'cancelled')", [batch_id]).fetchall():
            db.execute("update batch_jobs set status = ?, reason = ?, ended_at = coalesce(ended_at, ?) "
                       "where batch_id = ? and n = ?", [status, reason or "", _now(), batch_id, n])
            db.execute("update batch_attempts set status = ? where batch_id = ? and n = ? and attempt = "
                       "(select attempts from batch_jobs where batch_id = ? and n = ?)",
                       [status, batch_id, n, batch_id, n])
            settled.append(int(n))
    return settled

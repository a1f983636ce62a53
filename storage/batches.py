"""Batches in the store: each job of a `goalbot batch`, what it asks, how it ended and the session
that ran it — so `batch status` reads it from any login, and `batch resume` runs only what is
not done."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone
from typing import Any

import sqlite_utils
from pydantic import BaseModel

DONE = ("ok", "failed", "cancelled")  # a job that ended, whichever way: resume leaves it alone


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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_batch(db: sqlite_utils.Database, source: str, workers: int, specs: list[dict[str, Any]]) -> str:
    batch_id = datetime.now().strftime("b%Y%m%d-%H%M%S-") + secrets.token_hex(2)
    with db.conn:
        db.execute("insert into batches (id, created_at, source, workers) values (?, ?, ?, ?)",
                   [batch_id, _now(), source, workers])
        for n, spec in enumerate(specs, 1):
            db.execute("insert into batch_jobs (batch_id, n, spec, status) values (?, ?, ?, 'pending')",
                       [batch_id, n, json.dumps(spec, ensure_ascii=False)])
    return batch_id


def jobs(db: sqlite_utils.Database, batch_id: str) -> list[JobRow]:
    found = db.execute(
        "select j.batch_id, j.n, j.spec, j.status, j.session_id, j.attempts, j.reason, j.started_at, j.ended_at, "
        "s.model_calls, s.cost_usd from batch_jobs j left join sessions s on s.id = j.session_id "
        "where j.batch_id = ? order by j.n", [batch_id]).fetchall()
    return [JobRow(batch_id=r[0], n=r[1], spec=json.loads(r[2]), status=r[3], session_id=r[4], attempts=r[5],
                   reason=r[6], started_at=r[7], ended_at=r[8], model_calls=r[9] or 0, cost_usd=r[10])
            for r in found]


def exists(db: sqlite_utils.Database, batch_id: str) -> bool:
    return db["batches"].exists() and db.execute("select 1 from batches where id = ?", [batch_id]).fetchone() is not None


def started(db: sqlite_utils.Database, batch_id: str, n: int) -> None:
    with db.conn:
        db.execute("update batch_jobs set status = 'running', attempts = attempts + 1, started_at = ?, "
                   "ended_at = null where batch_id = ? and n = ?", [_now(), batch_id, n])


def ended(db: sqlite_utils.Database, batch_id: str, n: int, status: str, session_id: str | None, reason: str) -> None:
    with db.conn:
        db.execute("update batch_jobs set status = ?, session_id = ?, reason = ?, ended_at = ? "
                   "where batch_id = ? and n = ?", [status, session_id, reason, _now(), batch_id, n])

"""Reading the store: sessions, and events in the order they were stored."""

from __future__ import annotations

import json
import os
import socket
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from pydantic import ValidationError

from goalbot.events import Event, EventType
from goalbot.payloads import ObservationData
from storage.db import cut_off
from storage.rows import SessionRow

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


def _as_seen(row: dict[str, Any]) -> SessionRow:
    """A session whose process died still reads 'running' until a run marks it; say what it is."""
    if cut_off(row):
        row = {**row, "status": "interrupted", "finish_reason": row.get("finish_reason") or "the process ended mid-run"}
    return SessionRow.of(row)


def list_sessions(db: sqlite_utils.Database, limit: int = 50, status: str | None = None) -> list[SessionRow]:
    if not status:
        return [_as_seen(row) for row in db.query(
            "select * from sessions order by started_at desc limit ?", [limit])]
    seen = (_as_seen(row) for row in db.query(
        "select * from sessions where status in (?, 'running') order by started_at desc", [status]))
    return [row for row in seen if row.status == status][:limit]


def _event(row: dict[str, Any]) -> Event | None:
    """The stored event, or None for a row no version of goalbot could have written."""
    try:
        return Event(
            session_id=row["session_id"], seq=row["seq"], ts=datetime.fromisoformat(row["ts"]),
            type=row["type"], actor=row["actor"], step=row["step"], data=json.loads(row["data"] or "{}"),
        )
    except (ValueError, TypeError, ValidationError, RecursionError):
        return None


def _events(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[int, Event]]:
    for row in rows:
        event = _event(row)
        if event is not None:
            yield row["id"], event


def events_after(
    db: sqlite_utils.Database, after_id: int = 0, session_id: str | None = None, limit: int = 1000
) -> Iterator[tuple[int, Event]]:
    """Events in the order they were stored, with the row id to continue from."""
    where = "where id > ?" + (" and session_id = ?" if session_id else "")
    args: list[Any] = [after_id] + ([session_id] if session_id else [])
    yield from _events(db.query(f"select * from events {where} order by id limit ?", [*args, limit]))


def recent_events(
    db: sqlite_utils.Database, count: int, session_id: str | None = None
) -> list[tuple[int, Event]]:
    """The last `count` events, oldest first."""
    where, args = ("where session_id = ?", [session_id]) if session_id else ("", [])
    rows = list(db.query(f"select * from events {where} order by id desc limit ?", [*args, count]))
    return list(_events(reversed(rows)))


def last_event_id(db: sqlite_utils.Database) -> int:
    row = next(db.query("select coalesce(max(id), 0) as id from events"))
    return int(row["id"])


def session_row(db: sqlite_utils.Database, session_id: str) -> SessionRow | None:
    row = next(db.query("select * from sessions where id = ?", [session_id]), None)
    return _as_seen(row) if row is not None else None


def session_events(db: sqlite_utils.Database, session_id: str, after_seq: int = 0, limit: int = -1) -> list[Event]:
    """The session's events in order, from the one after `after_seq`; all of them unless `limit`."""
    return [event for _, event in _events(db.query(
        "select * from events where session_id = ? and seq > ? order by seq limit ?", [session_id, after_seq, limit]))]


def last_artifact_number(db: sqlite_utils.Database, session_id: str) -> int:
    """The highest artifact number the session used (its ids end in -N), so a resumed run goes on from it."""
    numbers = [int(row["id"].rsplit("-", 1)[-1]) for row in db.query(
        "select id from artifacts where session_id = ?", [session_id]) if row["id"].rsplit("-", 1)[-1].isdigit()]
    return max(numbers, default=0)


def last_url(events: list[Event]) -> str | None:
    for event in reversed(events):
        match event.type, event.payload:
            case EventType.OBSERVATION, ObservationData(url=str() as url) if url.startswith("http"):
                return url
    return None


def save_report(db: sqlite_utils.Database, session_id: str, markdown: str) -> None:
    with db.conn:
        db.execute("update sessions set report = ? where id = ?", [markdown, session_id])


def find_sessions(
    db: sqlite_utils.Database, text: str = "", status: str | None = None, limit: int = 500
) -> list[SessionRow]:
    """Sessions whose goal, id or finish reason contain `text`, newest first, without their reports."""
    clauses, args = [], []
    if status:
        clauses.append("status = ?")
        args.append(status)
    if text:
        clauses.append("(goal like ? or id like ? or coalesce(finish_reason, '') like ?)")
        args += [f"%{text}%"] * 3
    where = f"where {' and '.join(clauses)}" if clauses else ""
    return [SessionRow.of(row) for row in db.query(
        "select id, goal, url, status, finish_reason, model, started_at, ended_at, steps, model_calls, "
        f"tokens_in, tokens_out, cost_usd from sessions {where} order by started_at desc limit ?",
        [*args, limit],
    )]


def delete_session(db: sqlite_utils.Database, session_id: str) -> None:
    with db.conn:
        for table in ("events", "artifacts", "commands"):
            db.execute(f"delete from {table} where session_id = ?", [session_id])
        db.execute("delete from sessions where id = ?", [session_id])


def latest_screenshot(db: sqlite_utils.Database, session_id: str) -> tuple[str, bytes] | None:
    """The session's newest screenshot (its mime and bytes); None before its first."""
    row = db.execute("select mime, content from artifacts where session_id = ? and kind = 'screenshot' "
                     "order by rowid desc limit 1", [session_id]).fetchone()
    return (str(row[0]), bytes(row[1])) if row else None


def trace_of(db: sqlite_utils.Database, session_id: str) -> tuple[str, int] | None:
    """The session's kept Playwright trace: its artifact id and size."""
    row = db.execute("select id, size from artifacts where session_id = ? and kind = 'trace' order by ts desc limit 1",
                     [session_id]).fetchone()
    return (str(row[0]), int(row[1] or 0)) if row else None


def artifact_content(db: sqlite_utils.Database, artifact_id: str) -> bytes | None:
    row = next(db.query("select content from artifacts where id = ?", [artifact_id]), None)
    return row["content"] if row else None


def latest_session_id(db: sqlite_utils.Database, status: str | None = None) -> str | None:
    rows = list_sessions(db, limit=1, status=status)
    return rows[0].id if rows else None


def post_command(db: sqlite_utils.Database, session_id: str, kind: str, payload: dict[str, Any], by: str) -> None:
    with db.conn:
        db.table("commands").insert({
            "session_id": session_id, "ts": datetime.now().astimezone().isoformat(), "kind": kind,
            "payload": json.dumps(payload, ensure_ascii=False), "by": by,
        })


def take_commands(db: sqlite_utils.Database, session_id: str) -> list[tuple[str, dict[str, Any], str]]:
    """The session's commands not taken yet, oldest first; each is marked taken and its payload
    dropped, so an answer lives in the file no longer than it takes to deliver it."""
    with db.conn:
        rows = list(db.query(
            "select id, kind, payload, by from commands where session_id = ? and taken_at is null order by id",
            [session_id]))
        now = datetime.now().astimezone().isoformat()
        for row in rows:
            db.execute("update commands set taken_at = ?, payload = '{}' where id = ?", [now, row["id"]])
    return [(row["kind"], json.loads(row["payload"] or "{}"), row["by"] or "attach") for row in rows]


def claim_for_resume(db: sqlite_utils.Database, session_id: str) -> bool:
    """Takes an interrupted session for this process, atomically: of two `goalbot resume` at once,
    exactly one gets it."""
    with db.conn:
        cursor = db.execute(
            "update sessions set status = 'running', pid = ?, host = ? where id = ? and status = 'interrupted'",
            [os.getpid(), socket.gethostname(), session_id])
    return cursor.rowcount == 1


def release_claim(db: sqlite_utils.Database, session_id: str) -> None:
    """A resume that never started gives the session back."""
    with db.conn:
        db.execute("update sessions set status = 'interrupted' where id = ? and status = 'running' and pid = ?",
                   [session_id, os.getpid()])


QUESTION_TYPES = ("PLAN_PROPOSED", "APPROVAL_REQUEST", "ASK_USER")


def latest_question(db: sqlite_utils.Database, session_id: str) -> int:
    """The seq of the newest question the session put to its person (0 when none): an answer is
    bound to it, so an answer copied or replayed later binds to nothing."""
    row = db.execute(f"select max(seq) from events where session_id = ? and type in ({', '.join('?' * 3)})",
                     [session_id, *QUESTION_TYPES]).fetchone()
    return int(row[0]) if row and row[0] is not None else 0

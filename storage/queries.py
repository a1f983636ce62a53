"""Reading the store: sessions, and events in the order they were stored."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterator

import sqlite_utils

from goalbot.events import Event, EventType


def list_sessions(db: sqlite_utils.Database, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
    where, args = ("where status = ?", [status]) if status else ("", [])
    return list(db.query(
        f"select * from sessions {where} order by started_at desc limit ?", [*args, limit]
    ))


def _event(row: dict[str, Any]) -> Event:
    return Event(
        session_id=row["session_id"], seq=row["seq"], ts=datetime.fromisoformat(row["ts"]),
        type=row["type"], actor=row["actor"], step=row["step"], data=json.loads(row["data"] or "{}"),
    )


def events_after(
    db: sqlite_utils.Database, after_id: int = 0, session_id: str | None = None, limit: int = 1000
) -> Iterator[tuple[int, Event]]:
    """Events in the order they were stored, with the row id to continue from."""
    where = "where id > ?" + (" and session_id = ?" if session_id else "")
    args: list[Any] = [after_id] + ([session_id] if session_id else [])
    for row in db.query(f"select * from events {where} order by id limit ?", [*args, limit]):
        yield row["id"], _event(row)


def recent_events(
    db: sqlite_utils.Database, count: int, session_id: str | None = None
) -> list[tuple[int, Event]]:
    """The last `count` events, oldest first."""
    where, args = ("where session_id = ?", [session_id]) if session_id else ("", [])
    rows = list(db.query(f"select * from events {where} order by id desc limit ?", [*args, count]))
    return [(row["id"], _event(row)) for row in reversed(rows)]


def last_event_id(db: sqlite_utils.Database) -> int:
    row = next(db.query("select coalesce(max(id), 0) as id from events"))
    return int(row["id"])


def session_row(db: sqlite_utils.Database, session_id: str) -> dict[str, Any] | None:
    return next(db.query("select * from sessions where id = ?", [session_id]), None)


def session_events(db: sqlite_utils.Database, session_id: str) -> list[Event]:
    return [_event(row) for row in db.query(
        "select * from events where session_id = ? order by seq", [session_id])]


def last_artifact_number(db: sqlite_utils.Database, session_id: str) -> int:
    """The highest artifact number the session used (its ids end in -N), so a resumed run goes on from it."""
    numbers = [int(row["id"].rsplit("-", 1)[-1]) for row in db.query(
        "select id from artifacts where session_id = ?", [session_id]) if row["id"].rsplit("-", 1)[-1].isdigit()]
    return max(numbers, default=0)


def last_url(events: list[Event]) -> str | None:
    for event in reversed(events):
        if event.type is EventType.OBSERVATION and str(event.data.get("url", "")).startswith("http"):
            return str(event.data["url"])
    return None


def save_report(db: sqlite_utils.Database, session_id: str, markdown: str) -> None:
    with db.conn:
        db.execute("update sessions set report = ? where id = ?", [markdown, session_id])

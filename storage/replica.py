"""One session copied from the store it is written to (a worker's) into another (the coordinator's),
as it happens: what is new since the last look, as plain JSON, and that JSON put into a store.

Applying the same changes twice leaves the store as once (events are keyed by their sequence,
artifacts by their id), so a stream read again after a crash does no harm.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

_SESSION_COLUMNS = ("id", "goal", "url", "status", "finish_reason", "answer", "model", "base_url", "operator",
                    "started_at", "ended_at", "steps", "model_calls", "tokens_in", "tokens_out", "cost_usd",
                    "model_errors", "report")


class Cursor(BaseModel):
    """How far a session has been copied."""

    seq: int = 0
    artifacts: set[str] = Field(default_factory=set)
    row: str = ""  # the session row last sent, as JSON: sent again only when it changed


class Changes(BaseModel):
    session_id: str
    session: dict[str, Any] | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    artifacts: list[dict[str, Any]] = Field(default_factory=list)

    def empty(self) -> bool:
        return self.session is None and not self.events and not self.artifacts


def changes_since(db: sqlite_utils.Database, session_id: str, cursor: Cursor,
                  max_bytes: int = 4_000_000) -> Changes:
    """What of `session_id` is not yet copied; `cursor` moves past it. Artifacts beyond `max_bytes`
    wait for the next call, so one message stays a size a broker takes."""
    found = Changes(session_id=session_id)
    row = db.execute(f"select {', '.join(_SESSION_COLUMNS)} from sessions where id = ?", [session_id]).fetchone()
    if row is None:
        return found
    session = dict(zip(_SESSION_COLUMNS, row))
    as_json = json.dumps(session, sort_keys=True, default=str)
    if as_json != cursor.row:
        found.session, cursor.row = session, as_json
    for seq, ts, kind, actor, step, data in db.execute(
            "select seq, ts, type, actor, step, data from events where session_id = ? and seq > ? order by seq",
            [session_id, cursor.seq]).fetchall():
        found.events.append({"seq": seq, "ts": ts, "type": kind, "actor": actor, "step": step, "data": data})
        cursor.seq = seq
    size = 0
    # Asked four times a second while a run goes on: only the new artifacts' content is read.
    new = [row[0] for row in db.execute("select id from artifacts where session_id = ? order by ts", [session_id])
           if row[0] not in cursor.artifacts]
    for artifact_id in new:
        found_row = db.execute("select kind, mime, ts, name, content from artifacts where id = ?",
                               [artifact_id]).fetchone()
        if found_row is None:
            continue
        kind, mime, ts, name, content = found_row
        if size and size + len(content or b"") > max_bytes:
            break
        size += len(content or b"")
        found.artifacts.append({"id": artifact_id, "kind": kind, "mime": mime, "ts": ts, "name": name,
                                "content": base64.b64encode(content or b"").decode("ascii")})
        cursor.artifacts.add(artifact_id)
    return found


def apply(db: sqlite_utils.Database, changes: Changes, host: str) -> None:
    """Puts `changes` into `db`, inside the caller's transaction. The session's host is where it ran
    (a worker's name) and it has no pid here, so this store never takes it for one of its own."""
    if changes.session is not None:
        known = {name: value for name, value in changes.session.items() if name in _SESSION_COLUMNS}
        session = {**known, "id": changes.session_id, "host": host, "pid": None}
        columns = ", ".join(session)
        updates = ", ".join(f"{name} = excluded.{name}" for name in session if name != "id")
        # A session this store already ended (marked interrupted when its worker was lost) stays so.
        db.execute(f"insert into sessions ({columns}) values ({', '.join('?' * len(session))}) "
                   f"on conflict(id) do update set {updates} where sessions.status = 'running'",
                   list(session.values()))
    session_id = changes.session_id
    for event in changes.events:
        db.execute("insert or ignore into events (session_id, seq, ts, type, actor, step, data) "
                   "values (?, ?, ?, ?, ?, ?, ?)",
                   [session_id, event["seq"], event["ts"], event["type"], event["actor"],
                    event["step"], event["data"]])
    for artifact in changes.artifacts:
        content = base64.b64decode(artifact["content"])
        db.execute("insert or replace into artifacts (id, session_id, kind, mime, ts, size, name, content) "
                   "values (?, ?, ?, ?, ?, ?, ?, ?)",
                   [artifact["id"], session_id, artifact["kind"], artifact["mime"],
                    artifact["ts"], len(content), artifact["name"], content])

"""Opening the SQLite file: where it lives, WAL mode, the schema."""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

import sqlite_utils

BUSY_TIMEOUT_MS = 5_000


class StoreError(Exception):
    """The store cannot be used; the message says which file and why."""


def default_path() -> Path:
    explicit = os.environ.get("GOALBOT_DB")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "goalbot" / "goalbot.db"


def connect(path: Path, create: bool = True) -> sqlite_utils.Database:
    if not create and not path.exists():
        raise StoreError(f"no goalbot store at {path} (nothing has run yet, or pass --db)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = sqlite_utils.Database(conn)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if create:
            db.enable_wal()
            db.execute("PRAGMA synchronous = NORMAL")
            ensure_schema(db)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from exc
    return db


def ensure_schema(db: sqlite_utils.Database) -> None:
    db["sessions"].create(
        {
            "id": str, "goal": str, "url": str, "status": str, "finish_reason": str, "answer": str,
            "model": str, "base_url": str, "operator": str, "started_at": str, "ended_at": str,
            "steps": int, "model_calls": int, "tokens_in": int, "tokens_out": int,
            "pid": int, "host": str,
        },
        pk="id",
        not_null={"goal", "status", "started_at"},
        defaults={"steps": 0, "model_calls": 0, "tokens_in": 0, "tokens_out": 0},
        if_not_exists=True,
    )
    db["events"].create(
        {
            "id": int, "session_id": str, "seq": int, "ts": str, "type": str, "actor": str,
            "step": int, "data": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
        not_null={"session_id", "seq", "ts", "type", "actor"},
        if_not_exists=True,
    )
    db["events"].create_index(["session_id", "seq"], unique=True, if_not_exists=True)
    db["artifacts"].create(
        {
            "id": str, "session_id": str, "kind": str, "mime": str, "ts": str, "size": int,
            "name": str, "content": bytes,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
        if_not_exists=True,
    )
    db["artifacts"].create_index(["session_id"], if_not_exists=True)
    # What `goalbot attach` tells a run in another process; the run takes each row once.
    db["commands"].create(
        {"id": int, "session_id": str, "ts": str, "kind": str, "payload": str, "by": str, "taken_at": str},
        pk="id", not_null={"session_id", "ts", "kind"}, if_not_exists=True,
    )
    # Columns added after the first stores were made; older files get them on open.
    if "name" not in db["artifacts"].columns_dict:
        db["artifacts"].add_column("name", str)
    columns = db["sessions"].columns_dict
    if "cost_usd" not in columns:
        db["sessions"].add_column("cost_usd", float)
    if "model_errors" not in columns:
        db["sessions"].add_column("model_errors", int, not_null_default=0)
    if "report" not in columns:
        db["sessions"].add_column("report", str)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def mark_interrupted(db: sqlite_utils.Database) -> list[str]:
    """Sessions still 'running' whose process on this host is gone were cut off: say so."""
    host = socket.gethostname()
    cut: list[str] = []
    for row in db.query("select id, pid, host from sessions where status = 'running'"):
        if row["host"] == host and row["pid"] and not _alive(row["pid"]):
            cut.append(row["id"])
    with db.conn:
        for session_id in cut:
            db["sessions"].update(
                session_id, {"status": "interrupted", "finish_reason": "the process ended mid-run"}
            )
    return cut

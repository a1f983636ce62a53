"""The store's schema, as ordered migrations: migration N brings `PRAGMA user_version` N-1 to N.

A migration runs inside the exclusive transaction `storage.db` opens, and is written in plain SQL
so nothing in it commits early. Migration 1 also brings stores made before versioning (version 0,
tables present, a few columns missing) up to date.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

_TABLES = [
    """create table if not exists sessions (
        id text primary key, goal text not null, url text, status text not null,
        finish_reason text, answer text, model text, base_url text, operator text,
        started_at text not null, ended_at text, steps integer default 0,
        model_calls integer default 0, tokens_in integer default 0, tokens_out integer default 0,
        pid integer, host text, cost_usd float, model_errors integer not null default 0, report text)""",
    """create table if not exists events (
        id integer primary key, session_id text not null references sessions(id), seq integer not null,
        ts text not null, type text not null, actor text not null, step integer, data text)""",
    "create unique index if not exists idx_events_session_id_seq on events (session_id, seq)",
    """create table if not exists artifacts (
        id text primary key, session_id text references sessions(id), kind text, mime text, ts text,
        size integer, name text, content blob)""",
    "create index if not exists idx_artifacts_session_id on artifacts (session_id)",
    # What `goalbot attach` tells a run in another process; the run takes each row once.
    """create table if not exists commands (
        id integer primary key, session_id text not null, ts text not null, kind text not null,
        payload text, by text, taken_at text)""",
]

# Columns added after the first stores were made: (table, column, declaration).
_LATER_COLUMNS = [
    ("artifacts", "name", "text"),
    ("sessions", "cost_usd", "float"),
    ("sessions", "model_errors", "integer not null default 0"),
    ("sessions", "report", "text"),
]


def _first(conn: sqlite3.Connection) -> None:
    for statement in _TABLES:
        conn.execute(statement)
    for table, column, declaration in _LATER_COLUMNS:
        if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"alter table {table} add column {column} {declaration}")


def _recipes(conn: sqlite3.Connection) -> None:
    """Recipes (seed 002): each version kept whole as JSON, and the heals reruns found."""
    conn.execute("""create table if not exists recipe_versions (
        name text not null, version integer not null, created_at text not null, source_session text,
        data text not null, primary key (name, version))""")
    conn.execute("""create table if not exists recipe_heals (
        name text not null, version integer not null, position integer not null, session_id text,
        healed_at text not null, evidence text not null, primary key (name, version, position))""")


def _batches(conn: sqlite3.Connection) -> None:
    """Batches (`goalbot batch`): each job, what it asked, and the session that ran it."""
    conn.execute("""create table if not exists batches (
        id text primary key, created_at text not null, source text, workers integer)""")
    conn.execute("""create table if not exists batch_jobs (
        batch_id text not null, n integer not null, spec text not null, status text not null,
        session_id text, attempts integer not null default 0, reason text, started_at text, ended_at text,
        primary key (batch_id, n))""")


def _cluster(conn: sqlite3.Connection) -> None:
    """Batches on Celery workers: the broker a batch went to and how far its event stream was
    read; the worker a job ran on; every attempt's session, so a job run again after a lost worker
    keeps the session that was cut off."""
    conn.execute("alter table batches add column broker text")
    conn.execute("alter table batches add column stream_pos text")
    conn.execute("alter table batch_jobs add column worker text")
    conn.execute("""create table if not exists batch_attempts (
        batch_id text not null, n integer not null, attempt integer not null, session_id text,
        worker text, status text, primary key (batch_id, n, attempt))""")
    # Each site's next slot for actions, shared by every run writing to this store (a local batch).
    conn.execute("create table if not exists site_pace (site text primary key, tat real not null)")


def _authoring(conn: sqlite3.Connection) -> None:
    """Authoring profiles (`goalbot tune`), each kept whole as JSON, and the one runs use."""
    conn.execute("""create table if not exists authoring_profiles (
        version integer primary key, created_at text not null, data text not null)""")
    conn.execute("""create table if not exists authoring_pin (
        id integer primary key check (id = 1), version integer, pinned_at text not null, forced integer)""")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_first, _recipes, _batches, _cluster, _authoring]

# What every reader relies on; a file without them is not a goalbot store.
REQUIRED_COLUMNS: dict[str, set[str]] = {
    "sessions": {"id", "goal", "status", "finish_reason", "answer", "model", "started_at", "ended_at",
                 "steps", "model_calls", "tokens_in", "tokens_out", "pid", "host", "cost_usd",
                 "model_errors", "report"},
    "events": {"id", "session_id", "seq", "ts", "type", "actor", "step", "data"},
    "artifacts": {"id", "session_id", "kind", "mime", "content", "name"},
    "commands": {"session_id", "ts", "kind", "payload", "taken_at"},
}

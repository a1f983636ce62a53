"""The Markdown report kept with each session, written from its events alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from goalbot.service.refusal import Say, say_nothing
from goalbot.text import report
from storage import queries, recipes
from storage.db import StoreError, connect


def store_report(db_path: Path, session_id: str, say: Say = say_nothing) -> str | None:
    """Writes the session's Markdown report next to it; None when it cannot be read."""
    try:
        db = connect(db_path)
    except StoreError as exc:
        say(f"the report was not written: {exc}")
        return None
    try:
        row = queries.session_row(db, session_id)
        if row is None:
            return None
        versions, heals = recipes.kept_by(db, session_id)
        trace = queries.trace_of(db, session_id)
        kept = report.Kept(versions=versions, heals=heals, trace_bytes=trace[1] if trace else 0)
        markdown = report.render(row.id, row.goal, queries.session_events(db, session_id), kept)
        try:
            queries.save_report(db, session_id, markdown)
        except sqlite3.Error as exc:  # a locked store keeps what it has; `goalbot report` retries
            say(f"the report was not stored ({exc}); goalbot report {session_id} makes it")
        return markdown
    finally:
        db.close()

"""Writing a stored session out: its events as JSON lines, and its Markdown report."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from goalbot.text import eventfmt, report
from storage import queries


def export_session(db: sqlite_utils.Database, session_id: str, directory: Path) -> tuple[Path, Path]:
    row = queries.session_row(db, session_id)
    if row is None:
        raise LookupError(f"no session {session_id}")
    events = queries.session_events(db, session_id)
    directory.mkdir(parents=True, exist_ok=True)
    jsonl = directory / f"goalbot-{session_id}.jsonl"
    jsonl.write_text("".join(eventfmt.json_line(event) + "\n" for event in events), encoding="utf-8")
    markdown = directory / f"goalbot-{session_id}.md"
    stored = row.report if not row.running else None  # a running one has none yet
    markdown.write_text(stored or report.render(row.id, row.goal, events), encoding="utf-8")
    return jsonl, markdown

"""`goalbot report [SESSION]`: a session's Markdown report, drawn on a terminal, plain into a pipe."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from goalbot.cli.terminal import colours_wanted, fail
from goalbot.service.settings import Settings
from storage import queries
from storage.db import opened


def cmd_report(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    with opened(db_path, create=False) as db:
        session_id = args.session or queries.latest_session_id(db)
        row = queries.session_row(db, session_id) if session_id else None
    if row is None:
        return fail(f"no session {args.session} in {db_path}" if args.session else "no sessions stored yet")
    if args.pictures is not None:
        return _with_pictures(db_path, row.id, args.pictures)
    markdown = row.report if not row.running else None
    if not markdown:
        from goalbot.service.reports import store_report

        markdown = store_report(db_path, row.id)
    if args.json:
        print(json.dumps({"session": row.id, "status": row.status, "goal": row.goal, "report": markdown or ""},
                         ensure_ascii=False))
    elif markdown and colours_wanted():  # read on a terminal: drawn; piped: the Markdown itself
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(markdown))
    else:
        print(markdown or "", end="")
    return 0


def _with_pictures(db_path: Path, session_id: str, folder: Path) -> int:
    """The report with its pictures, as files a Markdown reader shows together: DIR/report.md."""
    from goalbot.text import report, report_pictures
    from storage import recipes

    if folder.exists() and not folder.is_dir():
        return fail(f"--pictures {folder}: not a folder")
    with opened(db_path, create=False) as db:
        events = queries.session_events(db, session_id)
        shown = report_pictures.moments(events)
        contents = {m.artifact_id: queries.artifact_content(db, m.artifact_id) for m in shown}
        versions, heals = recipes.kept_by(db, session_id)
        row = queries.session_row(db, session_id)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    written: set[bytes] = set()  # the end often looks as the last GO did: one picture of it
    for number, moment in enumerate(shown, start=1):
        content = contents.get(moment.artifact_id)
        if content and content not in written:
            written.add(content)
            name = f"{number:02d}-{_slug(moment.label)}.jpg"
            (folder / name).write_bytes(content)
            files[moment.artifact_id] = name
    markdown = report.render(session_id, row.goal if row else "", events,
                             report.Kept(versions=versions, heals=heals), files)
    (folder / "report.md").write_text(markdown, encoding="utf-8")
    print(f"{folder / 'report.md'}: the report, with {len(files)} picture{'' if len(files) == 1 else 's'}"
          + ("" if files else " (the run kept none: a run nobody watched keeps only the screens of its GOs)"))
    return 0


def _slug(label: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in label.split(":")[0].lower()).split()
    return "-".join(words)[:40] or "picture"

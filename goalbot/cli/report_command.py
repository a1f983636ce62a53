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

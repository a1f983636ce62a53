"""`goalbot tail [-f] [--json]`: the store's newest events, and with -f every new one as it lands."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

from goalbot.cli.terminal import coloured, colours_wanted
from goalbot.events import Event
from goalbot.service.settings import Settings
from goalbot.text import eventfmt
from goalbot.text.severity import severity
from storage import queries
from storage.db import connect


def cmd_tail(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if args.follow and not db_path.exists():  # waiting on a mistyped --db would look like a quiet store
        print(f"goalbot: no store at {db_path} yet: waiting for the first run to make it", file=sys.stderr)
    db = connect(db_path, create=args.follow)  # following may start before the first run
    render: Callable[[Event], str] = eventfmt.json_line if args.json else eventfmt.line
    if not args.json and colours_wanted():
        render = lambda event: coloured(eventfmt.line(event), severity(event))  # noqa: E731
    rows = queries.recent_events(db, args.lines, args.session)
    last = rows[-1][0] if rows else queries.last_event_id(db)
    if not rows and not args.follow:
        print("no events stored yet", file=sys.stderr)
    for _, event in rows:
        print(render(event), flush=True)
    while args.follow:
        time.sleep(0.25)
        for last, event in queries.events_after(db, last, args.session):
            print(render(event), flush=True)
    return 0

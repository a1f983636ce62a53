"""`goalbot sessions`: the stored sessions, in the dashboard on a terminal, else as plain lines."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from goalbot.cli.terminal import has_terminal
from goalbot.service.settings import Settings
from goalbot.text.eventfmt import printable
from storage import queries
from storage.db import opened


def cmd_sessions(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if has_terminal() and not args.plain and not args.json:
        from goalbot.cli.dashboard import cmd_sessions_screen

        return cmd_sessions_screen(args, settings, db_path)
    with opened(db_path, create=False) as db:
        rows = queries.list_sessions(db, limit=args.limit, status=args.status)
    if args.json:
        print(json.dumps([row.model_dump(exclude={"report", "pid"}) | {"tokens": row.tokens} for row in rows],
                         ensure_ascii=False))
        return 0
    if not rows:
        print("no sessions stored yet")
        return 0
    # The goal comes last and whole: it is what a person reads the list by.
    print(f"{'SESSION':<22} {'STATUS':<11} {'STEPS':>5} {'CALLS':>5} {'TOKENS':>7} {'COST':>8}  {'WHY IT ENDED':<40}  GOAL")
    for row in rows:
        cost = "–" if row.cost_usd is None else f"${row.cost_usd:.4f}"
        why = " ".join((row.finish_reason or "").split())
        why = why if len(why) <= 40 else why[:39] + "…"
        print(f"{row.id:<22} {row.status:<11} {row.steps:>5} {row.model_calls:>5} "
              f"{row.tokens:>7} {cost:>8}  {printable(why):<40}  {printable(' '.join(row.goal.split()))}")
    return 0

"""`goalbot attach [SESSION]`: the dashboard on a session another process runs, to approve, answer or
stop it; a session that ended is replayed instead."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goalbot.cli.dashboard import app_for, stored_session
from goalbot.cli.terminal import fail, has_terminal
from goalbot.service.settings import Settings


def cmd_attach(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if not has_terminal():
        return fail("attach needs a terminal; goalbot tail -f follows a run without one")
    row = stored_session(db_path, args.session, latest_with_status="running")
    if row is None:
        return fail(f"no session {args.session} in {db_path}" if args.session
                    else "no session is running (goalbot sessions lists them)")
    opening = "attach" if row.running else "replay"
    if opening == "replay":
        print(f"goalbot: session {row.id} is {row.status}; replaying it", file=sys.stderr)
    app_for(settings, db_path, session_id=row.id, opening=opening).run()
    left = stored_session(db_path, row.id) or row
    # Like `run`, leaving says where the session stands and how to come back to it.
    back = f"goalbot attach {row.id}" if left.running else f"goalbot replay {row.id}"
    print(f"goalbot: session {row.id} {'goes on' if left.running else 'is ' + left.status}"
          f" ({back}; goalbot report {row.id})", file=sys.stderr)
    return 0

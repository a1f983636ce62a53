"""`goalbot replay [SESSION]`: a stored session redrawn in the dashboard from its events."""

from __future__ import annotations

import argparse
from pathlib import Path

from goalbot.cli.dashboard import app_for, stored_session
from goalbot.cli.terminal import fail, has_terminal
from goalbot.service.settings import Settings


def cmd_replay(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if not has_terminal():
        return fail("replay needs a terminal; goalbot report ID prints the story instead")
    row = stored_session(db_path, args.session)
    if row is None:
        return fail(f"no session {args.session} in {db_path}" if args.session else "no sessions stored yet")
    app_for(settings, db_path, session_id=row.id, opening="replay").run()
    return 0

"""`goalbot trace SESSION`: the Playwright trace a run or a batch job kept (`--trace`),
written out of the store and opened with `playwright show-trace`."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from goalbot.service.settings import Settings
from goalbot.cli.terminal import fail
from goalbot.defaults import data_home

SESSION_ID = re.compile(r"[\w-]{1,80}")


def cmd_trace(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if not SESSION_ID.fullmatch(args.session):
        return fail(f"{args.session!r} is not a session id (goalbot sessions lists them)")
    # Here, not at the top: this module is loaded for every command's parser, the store only for this one.
    from storage import queries
    from storage.db import opened

    with opened(db_path, create=False) as db:
        if queries.session_row(db, args.session) is None:
            return fail(f"no session {args.session} in {db_path}")
        found = queries.trace_of(db, args.session)
        content = queries.artifact_content(db, found[0]) if found else None
    if not content:
        return fail(f"session {args.session} kept no trace: a run or a batch keeps one with "
                    "--trace failed|always")
    path: Path = args.out or data_home() / "traces" / f"{args.session}.zip"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    except OSError as exc:
        return fail(f"cannot write {path}: {exc.strerror or exc}")
    print(f"goalbot: the trace of {args.session} is {path} ({len(content) / 1024:,.0f} KB)", file=sys.stderr)
    if args.out:
        return 0
    from goalbot.operators.display import display_problem  # loads only to open the viewer

    problem = display_problem()
    if problem:
        print(f"goalbot: the viewer needs a display, and {problem}: open it where there is one with "
              f"`playwright show-trace {path}`, or drop it on https://trace.playwright.dev", file=sys.stderr)
        return 0
    return subprocess.call([sys.executable, "-m", "playwright", "show-trace", str(path)])


def add_trace_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    trace = sub.add_parser("trace", help="open the Playwright trace a run kept (playwright show-trace)")
    trace.add_argument("session", metavar="ID", help="the session")
    trace.add_argument("--out", type=Path, metavar="FILE", help="only write the trace.zip to FILE")

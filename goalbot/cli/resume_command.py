"""`goalbot resume SESSION`: a session that was cut off, continued in the same session from its last
finished step."""

from __future__ import annotations

import argparse
from pathlib import Path

from goalbot.agents.progress import ResumePoint
from goalbot.agents.replaying import state_from_events
from goalbot.agents.secrets import SecretError
from goalbot.agents.session import RunOptions
from goalbot.cli.run_command import run_goal
from goalbot.cli.terminal import fail
from goalbot.events import EventType, RunStatus
from goalbot.payloads import TaskStartData
from goalbot.service.request import RunRequest
from goalbot.service.settings import Settings
from storage import queries
from storage.db import StoreError, mark_interrupted, opened


def cmd_resume(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Continues a session that was cut off, in the same session, from its last finished step."""
    with opened(db_path, create=False) as db:
        mark_interrupted(db)
        row = queries.session_row(db, args.session)
        if row is None:
            return fail(f"no session {args.session} in {db_path} (see goalbot sessions)")
        if row.running:
            return fail(f"session {args.session} is running in another process (pid {row.pid} on "
                        f"{row.host}): nothing to resume")
        if row.status != RunStatus.INTERRUPTED:
            return fail(f"session {args.session} is {row.status}, not interrupted: nothing to resume")
        if not queries.claim_for_resume(db, args.session):  # one process at most takes it up again
            return fail(f"session {args.session} is being resumed by another process")
        events = queries.session_events(db, args.session)
        last_artifact = queries.last_artifact_number(db, args.session)
    started = events[0].data_of(TaskStartData).options if events and events[0].type is EventType.TASK_START else {}
    try:
        options = RunOptions.model_validate({  # at the page it was on when it was cut off
            **started, "goal": row.goal, "url": queries.last_url(events) or row.url,
        })
        # The flags given now win for what the person decides (say, --yes, --allow-risky).
        if args.allow_risky:
            options.allow_risky = True
        if args.approval_timeout_s:
            options.approval_timeout_s = args.approval_timeout_s
    except ValueError as exc:
        _give_back(db_path, args.session)
        return fail(f"session {args.session} cannot be resumed: {exc}")
    point = ResumePoint(session_id=args.session, state=state_from_events(events),
                        last_seq=events[-1].seq if events else 0, last_artifact=last_artifact, start_url=row.url)
    # The key is never stored: it comes from the flags or the environment again; the endpoint and
    # the model are the session's own unless the flags name others.
    settings = settings.model_copy(update={
        "base_url": args.base_url or row.base_url or settings.base_url,
        "model": args.model or row.model or settings.model,
    })
    try:
        request = RunRequest.from_flags(args, settings.browser_path)
    except SecretError as exc:
        _give_back(db_path, args.session)
        return fail(str(exc))
    code = run_goal(request, settings, db_path, options, resume=point)
    if code == 2:  # it never started: another try may take it up
        _give_back(db_path, args.session)
    return code


def _give_back(db_path: Path, session_id: str) -> None:
    try:
        with opened(db_path) as db:
            queries.release_claim(db, session_id)
    except StoreError:
        return

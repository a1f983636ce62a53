"""A session that was cut off, taken up again from its last finished step in the same session: the
store claims it for one process, and its options and progress come from its own events. Every door
that resumes (`goalbot resume`, the Python API) prepares it here and starts it like any run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from goalbot.agents.options import RunOptions
from goalbot.agents.progress import ResumePoint
from goalbot.agents.replaying import state_from_events
from goalbot.events import Event, EventType, RunStatus
from goalbot.payloads import TaskStartData
from goalbot.service.refusal import Refusal
from goalbot.service.settings import Settings
from storage import queries
from storage import batches
from storage.db import StoreError, mark_interrupted, opened


@dataclass
class PreparedResume:
    options: RunOptions
    point: ResumePoint
    settings: Settings  # the session's own endpoint and model, unless the caller named others
    auto_approve: bool = False  # the run was started with --yes: its resume approves plans as it did


def prepare_resume(db_path: Path, settings: Settings, session_id: str, allow_risky: bool = False,
                   approval_timeout_s: float | None = None, base_url: str | None = None,
                   model: str | None = None) -> PreparedResume:
    """Claims `session_id` for this process; a `Refusal` when it cannot be resumed. What the caller
    decides now (`allow_risky`, the approval timeout) wins over what the session began with. A
    resume that then never starts gives it back (`give_back`)."""
    try:
        with opened(db_path, create=False) as db:
            mark_interrupted(db)
            row = queries.session_row(db, session_id)
            if row is None:
                raise Refusal("not_found", f"no session {session_id} in {db_path} (see goalbot sessions)")
            if row.running:
                raise Refusal("bad_input", f"session {session_id} is running in another process (pid {row.pid} "
                                          f"on {row.host}): nothing to resume")
            episode_of = batches.eval_of_session(db, session_id)
            if episode_of is not None:
                raise Refusal("bad_input", f"session {session_id} was an episode of `{episode_of}`, whose pages "
                                          "ended with it: run the eval again")
            if row.status != RunStatus.INTERRUPTED:
                raise Refusal("bad_input", f"session {session_id} is {row.status}, not interrupted: nothing to resume")
            if not queries.claim_for_resume(db, session_id):  # one process at most takes it up again
                raise Refusal("bad_input", f"session {session_id} is being resumed by another process")
            events = queries.session_events(db, session_id)
            last_artifact = queries.last_artifact_number(db, session_id)
    except StoreError as exc:
        raise Refusal("bad_input", str(exc)) from exc
    start = events[0].data_of(TaskStartData) if events and events[0].type is EventType.TASK_START else None
    started = start.options if start else {}
    try:
        options = RunOptions.model_validate({  # at the page it was on when it was cut off
            **started, "goal": row.goal, "url": queries.last_url(events) or row.url,
        })
        if allow_risky:
            options.allow_risky = True
        if approval_timeout_s:
            options.approval_timeout_s = approval_timeout_s
    except ValueError as exc:
        give_back(db_path, session_id)
        raise Refusal("bad_input", f"session {session_id} cannot be resumed: {exc}") from exc
    point = ResumePoint(session_id=session_id, state=state_from_events(events),
                        last_seq=events[-1].seq if events else 0, last_artifact=last_artifact, start_url=row.url)
    # The key is never stored: it comes from the caller or the environment again.
    settings = settings.model_copy(update={"base_url": base_url or row.base_url or settings.base_url,
                                           "model": model or row.model or settings.model})
    return PreparedResume(options=options, point=point, settings=settings, auto_approve=_approved_by_yes(start, events))


def _approved_by_yes(start: TaskStartData | None, events: list[Event]) -> bool:
    """Whether the run was started with --yes; a store from before TASK_START said so tells it by
    a plan approved by `--yes`."""
    if start is not None and start.auto_approve:
        return True
    return any(event.type is EventType.PLAN_APPROVED and event.data.get("by") == "--yes" for event in events)


def give_back(db_path: Path, session_id: str) -> None:
    """The claim released: a resume that never started leaves the session for another try."""
    try:
        with opened(db_path) as db:
            queries.release_claim(db, session_id)
    except StoreError:
        return

"""`goalbot batch JOBS.jsonl`: many goals or recipe reruns, each run unattended as `goalbot run` or
`goalbot rerun` would run it (`--workers N` at once, here, or on Celery workers with `--broker`),
each its own session in this store; the batch and each job's end are kept there too, so `goalbot batch status B` reads it from any login and
`goalbot batch resume B` runs only what is not done. Exit 0: every job reached its end well;
1: some did not; 2: bad input."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.agents.secrets import SecretError
from goalbot.cli import batch_broker as remote
from goalbot.cli.batch_progress import Progress
from goalbot.cli.terminal import emit, fail, say
from goalbot.service.batch.checking import check_jobs
from goalbot.service.batch.jobs import Job, JobsError, ended_line, read_jobs
from goalbot.service.batch.setup import JobEnd, JobSetup, secrets_of
from goalbot.service.batch.pool import run_in_slots
from goalbot.service.settings import Settings
from goalbot.text.eventfmt import printable
from storage import batches, queries
from storage.batches import DONE, JobRow
from storage.db import mark_interrupted, opened

if TYPE_CHECKING:
    from sqlite_utils import Database

INTERRUPTED = 130  # what a shell reports for a program ended by Ctrl-C


def cmd_batch(args: argparse.Namespace, settings: Settings, db_path: Path,
              slots: ProcessPoolExecutor | None = None) -> int:
    """`slots`: the new local batch's, started before this module loaded (batch_entry)."""
    if args.what in ("status", "resume"):
        if not args.batch_id and args.what == "status":
            return _batches(db_path, args.json)
        if not args.batch_id:
            return fail(f"goalbot batch {args.what} BATCH: name the batch (goalbot batch status lists them)")
        with opened(db_path, create=False) as db:
            if not batches.exists(db, args.batch_id):
                return fail(f"no batch {args.batch_id} in {db_path}")
            source = batches.source_of(db, args.batch_id) or ""
            if args.what == "resume" and source.startswith(batches.EVAL_SOURCE):
                return fail(f"batch {args.batch_id} is an eval's: its pages were served by that eval and are "
                            f"gone; run it again instead: {source}")
            if args.what == "resume":
                mark_interrupted(db)
                for n in batches.settle_ended(db, args.batch_id):
                    say(f"job {n} had ended before the batch was cut off: it is not run again")
            rows = batches.jobs(db, args.batch_id)
            if args.what == "status":
                rows = _as_they_stand(db, rows)
        if args.what == "status":
            if args.json:
                print(json.dumps({"batch": args.batch_id, "jobs": [_job_json(row) for row in rows]},
                                 ensure_ascii=False, indent=2))
            else:
                _table(rows)
            return 0 if all(row.status == "ok" for row in rows) else 1
        problem = _secrets_problem(args)
        if problem:
            return fail(problem)
        with opened(db_path) as db:
            broker = args.broker or batches.broker_of(db, args.batch_id)
        todo = [row for row in rows if row.status not in DONE]
        problem = _jobs_problem(args, settings, db_path, [(row.n, Job.model_validate(row.spec)) for row in todo],
                                broker, args.batch_id)
        if problem:
            return fail(problem)
        return _run(args, settings, db_path, args.batch_id, todo, broker)
    if args.batch_id:
        return fail("goalbot batch JOBS.jsonl takes no BATCH (did you mean status or resume?)")
    if not 1 <= args.workers <= 64:
        return fail("--workers is 1 to 64")
    if settings.operator == "desktop" and args.workers > 1:
        return fail("the desktop has one mouse and one keyboard: a desktop batch runs with --workers 1")
    problem = _secrets_problem(args)
    if problem:
        return fail(problem)
    if args.broker:
        problem = remote.problem(args.broker)
        if problem:
            return fail(problem)
    try:
        jobs = read_jobs(Path(args.what))
    except JobsError as exc:
        return fail(str(exc))
    problem = _jobs_problem(args, settings, db_path, list(enumerate(jobs, 1)), args.broker, args.what)
    if problem:
        return fail(problem)
    with opened(db_path) as db:
        batch_id = batches.new_batch(db, args.what, args.workers, [job.model_dump(exclude_none=True) for job in jobs],
                                     args.broker)
        rows = batches.jobs(db, batch_id)
    where = f"to the workers at {args.broker}" if args.broker else f"{min(args.workers, len(rows))} at once"
    print(f"goalbot: batch {batch_id}: {_jobs(len(rows))}, {where} (goalbot batch status {batch_id})",
          file=sys.stderr, flush=True)
    return _run(args, settings, db_path, batch_id, rows, args.broker, slots)


def _batches(db_path: Path, as_json: bool = False) -> int:
    """`goalbot batch status` with no batch: the newest batches, to name one."""
    with opened(db_path, create=False) as db:
        found = batches.listed(db)
    if as_json:
        print(json.dumps([{"batch": batch_id, "created": created, "jobs": jobs, "ok": ok, "not_ok": not_ok}
                          for batch_id, created, jobs, ok, not_ok in found], indent=2))
        return 0
    if not found:
        print("no batches yet: goalbot batch JOBS.jsonl")
        return 0
    print(f"{'BATCH':<24} {'CREATED':<20} {'JOBS':>5} {'OK':>5} {'NOT OK':>7}")
    for batch_id, created, jobs, ok, not_ok in found:
        print(f"{batch_id:<24} {created[:19].replace('T', ' '):<20} {jobs:>5} {ok:>5} {not_ok:>7}")
    return 0


def _as_they_stand(db: Database, rows: list[JobRow]) -> list[JobRow]:
    """A job still written as running whose session was cut off (its process is gone) reads
    interrupted, as its session does: a batch killed past any cleanup of its own."""
    mark_interrupted(db)
    return [row.model_copy(update={"status": "interrupted"})
            if row.status == "running" and row.session_id and _session_status(db, row.session_id) == "interrupted"
            else row for row in rows]


def _session_status(db: Database, session_id: str) -> str | None:
    found = queries.session_row(db, session_id)
    return found.status if found else None


def _job_json(row: JobRow) -> dict[str, object]:
    seconds = None
    if row.started_at and row.ended_at:
        seconds = round((datetime.fromisoformat(row.ended_at) - datetime.fromisoformat(row.started_at))
                        .total_seconds(), 3)
    return {"job": row.n, "status": row.status, "session": row.session_id, "attempts": row.attempts,
            "reason": row.reason, "model_calls": row.model_calls, "cost_usd": row.cost_usd, "seconds": seconds,
            "worker": row.worker, "what": Job.model_validate(row.spec).words(), "spec": row.spec}


def _jobs(count: int) -> str:
    return "1 job" if count == 1 else f"{count} jobs"


def _jobs_problem(args: argparse.Namespace, settings: Settings, db_path: Path, jobs: list[tuple[int, Job]],
                  broker: str | None, where: str) -> str | None:
    """Every job checked before any browser starts; the bad ones named, each with why, in one message.
    Jobs for workers are checked here but for their secrets and endpoint, which are the workers' own."""
    names = None if broker else set(secrets_of(args.secrets_file))
    bad = check_jobs(jobs, settings, db_path, names, say, endpoint=broker is None)
    if not bad:
        return None
    if args.json:
        for job in bad:
            emit(json.dumps({"batch": None, "job": job.n, "status": "refused", "session": None,
                             "reason": job.refusal.line(), "error": {"code": job.refusal.code,
                             "message": job.refusal.message, "hint": job.refusal.hint}}, ensure_ascii=False))
    lines = [f"{where}, job {job.n}: {job.refusal.line()} [{job.refusal.code}]" for job in bad[:20]]
    more = f"\n… and {len(bad) - 20} more" if len(bad) > 20 else ""
    return f"{_jobs(len(bad))} of {len(jobs)} cannot run; nothing was started:\n" + "\n".join(lines) + more


def _secrets_problem(args: argparse.Namespace) -> str | None:
    """A secrets file that cannot be read is said before any job starts."""
    try:
        secrets_of(args.secrets_file)
    except SecretError as exc:
        return str(exc)
    return None


def _run(args: argparse.Namespace, settings: Settings, db_path: Path, batch_id: str, todo: list[JobRow],
         broker: str | None, slots: ProcessPoolExecutor | None = None) -> int:
    progress = Progress(len(todo), sys.stderr.isatty())
    if broker:
        problem = remote.run_batch(args, db_path, batch_id, todo, broker, progress)
        if problem:
            progress.close()
            return fail(problem)
    else:
        try:
            asyncio.run(_work(args, settings, db_path, batch_id, todo, progress, slots))
        except KeyboardInterrupt:
            progress.close()
            return _stopped(db_path, batch_id)
    progress.close()
    with opened(db_path) as db:
        rows = batches.jobs(db, batch_id)
    if not args.json:
        _table(rows)
    return 0 if all(row.status == "ok" for row in rows) else 1


def _stopped(db_path: Path, batch_id: str) -> int:
    """A batch stopped with Ctrl-C (its slots already ended): the jobs it cut read `interrupted`,
    in the batch and in their sessions, and the person is told what is done and how to go on."""
    why = f"the batch was stopped (Ctrl-C); goalbot batch resume {batch_id} runs it again"
    with opened(db_path) as db:
        batches.settle_ended(db, batch_id)  # a job whose session ended just before the stop keeps its end
        rows = batches.jobs(db, batch_id)
        cut = [row for row in rows if row.status == "running"]
        for row in cut:
            with db.conn:
                batches.remote_cut(db, batch_id, row.n, row.attempts, why)
            batches.ended(db, batch_id, row.n, "interrupted", row.session_id, why)
    done = sum(row.status in DONE for row in rows)
    left = len(rows) - done
    print(f"\ngoalbot: batch {batch_id} stopped: {done} of {_jobs(len(rows))} done, {len(cut)} cut off "
          f"(interrupted), {left} to run; goalbot batch resume {batch_id} runs them", file=sys.stderr, flush=True)
    return INTERRUPTED


async def _work(args: argparse.Namespace, settings: Settings, db_path: Path, batch_id: str,
                todo: list[JobRow], progress: Progress, slots: ProcessPoolExecutor | None) -> None:
    setup = JobSetup(ask=args.ask, trace=args.trace, secrets=secrets_of(args.secrets_file), endpoint_checked=True)

    def ended(row: JobRow, end: JobEnd) -> None:
        progress.ended(end.status == "ok")
        if args.json:
            emit(ended_line(batch_id, row.n, end.status, end.session_id, end.reason))

    await run_in_slots(todo, settings, db_path, batch_id, setup, args.workers,
                       on_start=lambda _: progress.started(), on_end=ended, slots=slots)


def _table(rows: list[JobRow]) -> None:
    remote = any(row.worker for row in rows)
    where = f"  {'WORKER':<16}" if remote else ""
    print(f"{'JOB':>4}  {'STATUS':<10} {'CALLS':>5} {'COST':>8} {'TIME':>7}  {'SESSION':<22}{where}  WHAT")
    for row in rows:
        cost = "–" if row.cost_usd is None else f"${row.cost_usd:.4f}"
        took = "–"
        if row.started_at and row.ended_at:
            seconds = (datetime.fromisoformat(row.ended_at) - datetime.fromisoformat(row.started_at)).total_seconds()
            took = f"{seconds:.1f}s"
        what = Job.model_validate(row.spec).words()
        why = f" — {row.reason}" if row.reason and row.status != "ok" else ""
        worker = f"  {(row.worker or '–')[:16]:<16}" if remote else ""
        print(printable(f"{row.n:>4}  {row.status:<10} {row.model_calls:>5} {cost:>8} {took:>7}  "
                        f"{row.session_id or '–':<22}{worker}  {what[:50]}{why[:120]}"))

"""`goalbot batch --broker`: the batch's jobs go to Celery workers, and the coordinator follows
them into its store. Celery and redis are the optional extra `goalbot[cluster]`, loaded only here."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from storage import batches
from storage.batches import DONE, JobRow
from storage.db import opened

if TYPE_CHECKING:
    from goalbot.cli.batch_progress import Progress
    from goalbot.cluster.orders import Report

EXTRA = "from a checkout, pip install -e '.[cluster]' (Celery and redis)"


def problem(broker_url: str) -> str | None:
    """Why a batch cannot go to this broker, said before the batch is made; None when it can."""
    try:
        from goalbot.cluster.broker import BrokerError, connect
        from goalbot.cluster.sealing import NoClusterKey, Seal
    except ImportError:
        return f"--broker needs Celery: {EXTRA}"
    try:
        Seal.from_env()
        connect(broker_url).close()
    except (NoClusterKey, BrokerError) as exc:
        return str(exc)
    return None


def run_batch(args: argparse.Namespace, db_path: Path, batch_id: str, todo: list[JobRow], broker_url: str,
              progress: Progress) -> str | None:
    """Sends what is left of the batch and follows it to its end; why it could not, or None."""
    problem_now = problem(broker_url)
    if problem_now:
        return problem_now
    from goalbot.cli.terminal import emit
    from goalbot.service.batch.jobs import ended_line
    from goalbot.cluster.broker import WORKERS, BrokerError, connect
    from goalbot.cluster.coordinator import Coordinator
    from goalbot.cluster.sealing import Seal

    def reported(report: Report) -> None:
        if report.kind == "started":
            progress.started()
        elif report.kind == "ended":
            progress.ended(report.status == "ok")
            if args.json:
                emit(ended_line(batch_id, report.job, report.status, report.session, report.reason,
                                worker=report.worker))
        elif report.kind == "cut":
            progress.lost()
            print(f"\ngoalbot: job {report.job}: {report.reason}", file=sys.stderr, flush=True)

    import redis
    from kombu.exceptions import OperationalError

    with opened(db_path) as db:
        try:
            coordinator = Coordinator(db, batch_id, broker_url, connect(broker_url), Seal.from_env(),
                                      ask=args.ask, trace=args.trace)
            coordinator.follow(lambda _report: None, until_done=False)  # what the workers did while nobody read
            left = [row for row in batches.jobs(db, batch_id) if row.n in {r.n for r in todo}
                    and row.status not in DONE]
            sent = coordinator.send(left)
            if left and not coordinator.redis.hlen(WORKERS):
                print(f"goalbot: no worker serves {broker_url} yet; the jobs wait for one "
                      f"(goalbot worker --broker {broker_url})", file=sys.stderr, flush=True)
            if sent < len(left):
                print(f"goalbot: {len(left) - sent} of the jobs left were already with the workers", file=sys.stderr)
            coordinator.follow(reported)
        except (redis.RedisError, OperationalError, BrokerError) as exc:
            # Every report applied so far is in the store with the stream's position: nothing is lost.
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return (f"the broker {broker_url} stopped answering ({first}); what the workers reported is kept: "
                    f"goalbot batch resume {batch_id} goes on once it is back")
    return None

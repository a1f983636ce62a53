"""`goalbot worker --broker redis://…`: a Celery worker serving batch jobs on this machine, one
browser per slot (`--browsers N`), its sessions in this machine's store and copied, as they run, to
the coordinator's."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

from goalbot.service.settings import Settings
from goalbot.cli.terminal import fail


def cmd_worker(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.agents.secrets import SecretError
    from goalbot.service.batch.setup import opens_ahead, secrets_of

    try:
        from goalbot.cluster.broker import QUEUE, BrokerError, celery_app, connect
        from goalbot.cluster.sealing import NoClusterKey, Seal
        from goalbot.cluster.worker import WorkerSetup, register
    except ImportError:
        return fail("goalbot worker needs Celery: from a checkout, pip install -e '.[cluster]' (Celery and redis)")
    if not 1 <= args.browsers <= 64:
        return fail("--browsers is 1 to 64")
    if args.requeue_after < 10:
        return fail("--requeue-after is 10 seconds at least")
    try:
        secrets = secrets_of(args.secrets_file)
    except SecretError as exc:
        return fail(str(exc))
    try:
        seal = Seal.from_env()
        client = connect(args.broker)
    except (NoClusterKey, BrokerError) as exc:
        return fail(str(exc))
    name = args.name or f"goalbot-{os.getpid()}@{socket.gethostname()}"
    app = celery_app(args.broker, args.requeue_after)
    register(app, WorkerSetup(name=name, db_path=db_path, settings=settings, seal=seal, client=client,
                              broker_url=args.broker, cdp_url=args.cdp_url, secrets=secrets,
                              open_ahead=opens_ahead(args.browsers)))
    print(f"goalbot worker {name}: {args.browsers} browsers, jobs from {args.broker}, sessions in {db_path}",
          file=sys.stderr, flush=True)
    # One process a browser: a job's Python work has a core of its own, and its slot keeps the browser.
    app.worker_main(["worker", "--pool", "prefork", "--concurrency", str(args.browsers), "--hostname", name,
                     "--queues", QUEUE, "--loglevel", "WARNING", "--without-gossip", "--without-mingle"])
    return 0


def add_worker_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    from goalbot.cli.flags import add_model_flags, add_settings

    worker = sub.add_parser("worker", help="serve batch jobs sent with goalbot batch --broker",
                            description="Serves the jobs of `goalbot batch --broker` on this machine. The "
                                        "coordinator and every worker share GOALBOT_CLUSTER_KEY, which seals what "
                                        "passes between them. The model endpoint and its key are this machine's.")
    worker.add_argument("--broker", required=True, metavar="redis://HOST:PORT/DB", help="the coordinator's Redis")
    worker.add_argument("--browsers", type=int, default=2, help="jobs at once, each its own browser (default 2)")
    worker.add_argument("--cdp-url", metavar="URL", help="take each job's browser from this Chromium (a grid)")
    worker.add_argument("--name", help="this worker's name in the store (default goalbot-PID@HOST)")
    worker.add_argument("--requeue-after", type=int, default=120, metavar="S",
                        help="a job whose worker was lost runs again after S seconds (default 120)")
    worker.add_argument("--secrets-file", type=Path, metavar="FILE",
                        help="secrets (NAME=VALUE lines) the jobs may type; they stay on this machine")
    add_model_flags(worker)
    add_settings(worker.add_argument_group("pace per site, kept across every worker of the broker"),
                 "min_interval_s", "burst", "clicks_per_minute")
    return worker

"""The Celery app both sides share, and the few Redis keys a job keeps beside its message.

Jobs are acknowledged late: a worker that dies mid-job (killed, its machine lost) leaves its
message unacknowledged, and after `requeue_after_s` another worker's sweep puts it back on the
queue. A job's claim, refreshed while it runs, tells a live worker's job from a lost one's.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import redis
from celery import Celery

QUEUE = "goalbot.jobs"
TASK = "goalbot.job"
CLAIM_TTL_S = 15
KEEP_S = 7 * 24 * 3600  # how long a batch's keys and stream outlive it
STREAM_MAXLEN = 200_000
WORKERS = "goalbot:workers"  # the workers serving now, by name


class BrokerError(Exception):
    """The broker cannot be used; the message says which and why."""


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise BrokerError(f"--broker {url!r} is not a Redis address: give redis://HOST:PORT/DB")
    return url


def connect(url: str) -> redis.Redis:
    client = redis.Redis.from_url(check_url(url), socket_connect_timeout=5, socket_timeout=30)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise BrokerError(f"the broker {url} does not answer ({exc}); is redis-server running there?") from exc
    return client


def celery_app(url: str, requeue_after_s: int = 120) -> Celery:
    app = Celery("goalbot", broker=check_url(url))
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=False,  # a job the worker could not even report on goes back
        worker_prefetch_multiplier=1,
        task_default_queue=QUEUE,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        broker_transport_options={"visibility_timeout": requeue_after_s, "unacked_restore_interval": 2,
                                  "unacked_restore_throttle": 1},
    )
    return app


class JobKeys:
    """Where one job's state lives in Redis."""

    def __init__(self, batch_id: str, n: int) -> None:
        base = f"goalbot:batch:{batch_id}:job:{n}"
        self.queued, self.claim, self.attempts, self.done = (f"{base}:{part}" for part in
                                                              ("queued", "claim", "attempts", "done"))


def stream_of(batch_id: str) -> str:
    return f"goalbot:batch:{batch_id}:events"


def commands_of(session_id: str) -> str:
    return f"goalbot:session:{session_id}:commands"

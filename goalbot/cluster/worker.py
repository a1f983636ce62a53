"""A Celery worker's side of a job: claim it, run it in this worker process's slot (its browser kept
between jobs) on this machine's own store, and copy its session to the coordinator's stream while
it runs; answers for it come back the other way. The model endpoint and its key are this machine's
settings: no key travels through the broker."""

from __future__ import annotations

import asyncio
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import redis
from celery import Celery, Task
from celery.signals import worker_process_init, worker_ready, worker_shutdown
from pydantic import SecretStr, ValidationError

from goalbot.service.batch.setup import JobSetup
from goalbot.cluster.broker import (CLAIM_TTL_S, KEEP_S, STREAM_MAXLEN, TASK, WORKERS, JobKeys, commands_of,
                                        stream_of)
from goalbot.cluster.orders import QUESTION_BOUND, Answer, JobOrder, Report
from goalbot.cluster.sealing import Seal, Unsealed
from goalbot.service.settings import Settings
from goalbot.service.batch.slot import Slot, this_slot
from goalbot.service.batch.slots import dies_with_parent
from goalbot.recipes.build import RecipeError
from goalbot.recipes.variables import fill
from storage import queries, recipes
from storage.db import StoreError, connect
from storage.replica import Cursor, changes_since

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

LOOK_EVERY_S = 0.25


@dataclass
class WorkerSetup:
    name: str
    db_path: Path
    settings: Settings
    seal: Seal
    client: redis.Redis
    broker_url: str
    cdp_url: str | None = None
    secrets: dict[str, SecretStr] = field(default_factory=dict)  # this machine's, never the broker's
    open_ahead: bool = True  # `opens_ahead` for this worker's browsers


def register(app: Celery, setup: WorkerSetup) -> None:
    """The job task on `app`, and this worker's name kept in the broker's list while it serves."""

    @worker_ready.connect(weak=False)
    def _ready(**_: Any) -> None:
        setup.client.hset(WORKERS, setup.name, _now())
        _say(f"{setup.name} is ready")

    @worker_shutdown.connect(weak=False)
    def _gone(**_: Any) -> None:
        setup.client.hdel(WORKERS, setup.name)

    @worker_process_init.connect(weak=False)
    def _slot_starts(**_: Any) -> None:
        dies_with_parent()  # a slot (its job, its browser) goes when its worker goes

    @app.task(name=TASK, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
    def job(task: Task, sealed: str) -> None:
        try:
            order = JobOrder.model_validate(setup.seal.open(sealed))
        except (Unsealed, ValidationError) as exc:
            _say(f"refused a job: {str(exc).splitlines()[0]} (is GOALBOT_CLUSTER_KEY the coordinator's?)")
            return
        keys = JobKeys(order.batch, order.n)
        if setup.client.exists(keys.done):  # a copy of a job that already ended: put back, or replayed
            _say(f"job {order.n} of batch {order.batch} has ended already: this copy of its order is not run")
            return
        if not setup.client.set(keys.claim, setup.name, nx=True, ex=CLAIM_TTL_S):
            # Another worker runs it (this is a copy the broker put back): look again later, in
            # case that worker is lost before it ends.
            raise task.retry(countdown=CLAIM_TTL_S)
        Shift(setup, order, keys).work()


class Shift:
    """One attempt of one job on this worker."""

    def __init__(self, setup: WorkerSetup, order: JobOrder, keys: JobKeys) -> None:
        self.setup, self.order, self.keys = setup, order, keys
        self.attempt = int(setup.client.incr(keys.attempts))
        setup.client.expire(keys.attempts, KEEP_S)
        self._stop = threading.Event()

    def work(self) -> None:
        heartbeat = threading.Thread(target=self._keep_claim, daemon=True)
        heartbeat.start()
        try:
            if self.attempt > 1:  # the attempt before this one never ended: its worker was lost
                self._tell(kind="cut", attempt=self.attempt - 1,
                           reason=f"its worker was lost mid-run; the job runs again on {self.setup.name}")
            self._tell(kind="started", at=_now())
            try:
                status, session_id, reason, made = self._run()
            except Exception as exc:  # said as the job's end, never a job silently dropped
                status, session_id, reason, made = "failed", None, f"the worker could not run it: {exc}"[:200], {}
            self._tell(kind="ended", status=status, session=session_id, reason=reason, at=_now(), **made)
            self.setup.client.set(self.keys.done, status, ex=KEEP_S)
        finally:
            self._stop.set()
            if self.setup.client.get(self.keys.claim) == self.setup.name.encode():
                self.setup.client.delete(self.keys.claim)

    def _run(self) -> tuple[str, str | None, str, dict[str, Any]]:
        try:
            self._take_recipe()
        except (RecipeError, StoreError) as exc:
            return "failed", None, f"the recipe sent with the job was refused: {exc}", {}
        # A grid's browser (--cdp-url) is shared with others: each job takes a fresh context of it.
        setup = JobSetup(ask=self.order.ask, trace=self.order.trace, secrets=self.setup.secrets,
                         shared_pace=self.setup.broker_url, cdp_url=self.setup.cdp_url,
                         fresh_context=self.setup.cdp_url is not None, open_ahead=self.setup.open_ahead)
        slot = this_slot()
        return slot.run(self._attempt(slot, setup))

    async def _attempt(self, slot: Slot, setup: JobSetup) -> tuple[str, str | None, str, dict[str, Any]]:
        """The job run in this worker process's slot, its session copied out and answers taken in
        while it runs."""
        wired: list[str] = []
        # Where the coordinator saw the recipe recorded: its secrets may be typed there, as there.
        secrets_at = fill(self.order.secrets_at, self.order.job.vars) if self.order.secrets_at else None
        running = asyncio.create_task(slot.job(self.order.job, self.setup.settings, self.setup.db_path, setup,
                                               on_wired=wired.append, secrets_at=secrets_at))
        db = connect(self.setup.db_path)
        cursor = Cursor()
        try:
            while not running.done():
                await asyncio.wait({running}, timeout=LOOK_EVERY_S)
                if wired:
                    await asyncio.to_thread(self._relay, db, wired[0], cursor)
            end = running.result()
            if end.session_id:
                while await asyncio.to_thread(self._copy, db, end.session_id, cursor):
                    pass
            return end.status, end.session_id, end.reason, self._made(db, end.session_id) if end.session_id else {}
        finally:
            db.close()

    def _relay(self, db: sqlite_utils.Database, session_id: str, cursor: Cursor) -> None:
        self._copy(db, session_id, cursor)
        self._take_answers(db, session_id)

    def _take_recipe(self) -> None:
        sent = self.order.recipe_sent()
        if sent is None:
            return
        db = connect(self.setup.db_path)
        try:
            kept = recipes.load(db, sent.name)
            if kept is None or kept.model_dump(exclude={"version"}) != sent.model_dump(exclude={"version"}):
                recipes.save(db, sent)
        finally:
            db.close()

    def _copy(self, db: sqlite_utils.Database, session_id: str, cursor: Cursor) -> bool:
        changes = changes_since(db, session_id, cursor)
        if changes.empty():
            return False
        self._tell(kind="changes", changes=changes)
        return True

    def _take_answers(self, db: sqlite_utils.Database, session_id: str) -> None:
        """What the person said on the coordinator (`goalbot attach`), put where the run reads it."""
        while (sealed := self.setup.client.lpop(commands_of(session_id))) is not None:
            try:
                said = Answer.model_validate(self.setup.seal.open(sealed))  # type: ignore[arg-type]
            except (Unsealed, ValidationError) as exc:
                _say(f"session {session_id}: refused an answer: {str(exc).splitlines()[0]}")
                continue
            if said.session != session_id or said.batch != self.order.batch:
                _say(f"session {session_id}: refused an answer meant for another session")
                continue
            if said.kind in QUESTION_BOUND and said.question != queries.latest_question(db, session_id):
                _say(f"session {session_id}: refused an answer to a question it is not asking now")
                continue
            queries.post_command(db, session_id, said.kind, said.payload, said.by)

    def _made(self, db: sqlite_utils.Database, session_id: str) -> dict[str, Any]:
        """The recipe versions (a patch) and heals this run left in this worker's store."""
        versions = [str(row[0]) for row in db.execute(
            "select data from recipe_versions where source_session = ? order by version", [session_id])]
        heals = [{"name": name, "position": position, "evidence": evidence} for name, position, evidence in db.execute(
            "select name, position, evidence from recipe_heals where session_id = ?", [session_id])]
        return {"recipes": versions, "heals": heals}

    def _tell(self, **fields: Any) -> None:
        report = Report(batch=self.order.batch, job=self.order.n, attempt=fields.pop("attempt", self.attempt),
                        worker=self.setup.name, **fields)
        stream = stream_of(self.order.batch)
        self.setup.client.xadd(stream, {"m": self.setup.seal.seal(report.model_dump(mode="json"))},
                              maxlen=STREAM_MAXLEN, approximate=True)
        self.setup.client.expire(stream, KEEP_S)

    def _keep_claim(self) -> None:
        while not self._stop.wait(CLAIM_TTL_S / 3):
            if self.setup.client.get(self.keys.claim) == self.setup.name.encode():
                self.setup.client.expire(self.keys.claim, CLAIM_TTL_S)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _say(text: str) -> None:
    print(f"goalbot worker: {text}", file=sys.stderr, flush=True)

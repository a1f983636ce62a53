"""The coordinator's side of a batch on Celery: send the jobs not yet sent, then read the batch's
stream into this store as it comes (each report applied in the same transaction that moves the
stream's position, so a coordinator killed and resumed applies each once), and pass what a person
says through `goalbot attach` on to the worker running that session."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Callable, cast

import redis
from pydantic import ValidationError

from goalbot.service.batch.jobs import Job, TraceKept
from goalbot.cluster.broker import KEEP_S, TASK, JobKeys, celery_app, commands_of, stream_of
from goalbot.cluster.orders import Answer, JobOrder, Report, recipe_files
from goalbot.cluster.sealing import Seal, Unsealed
from goalbot.service.reruns import recorded_at
from goalbot.recipes.model import Evidence, Recipe
from storage import batches, queries, recipes
from storage.batches import DONE, JobRow
from storage.replica import apply

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

READ_BLOCK_MS = 500
Entries = list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]  # what XREAD answers


class Coordinator:
    def __init__(self, db: sqlite_utils.Database, batch_id: str, broker_url: str, client: redis.Redis, seal: Seal,
                 ask: bool = False, trace: TraceKept = "off") -> None:
        self.db, self.batch_id, self.broker_url, self.redis, self.seal = db, batch_id, broker_url, client, seal
        self.ask, self.trace = ask, trace
        self.stream = stream_of(batch_id)
        self._warned: set[str] = set()

    def send(self, todo: list[JobRow]) -> int:
        """Sends each job not already with the broker (sent before a coordinator was cut off, or
        done there since); how many went."""
        app = celery_app(self.broker_url)
        sent = 0
        for row in todo:
            keys = JobKeys(self.batch_id, row.n)
            if self.redis.exists(keys.queued) or self.redis.exists(keys.done):
                continue
            job = Job.model_validate(row.spec)
            recipe = recipes.load(self.db, job.recipe) if job.recipe else None
            if job.recipe and recipe is None:
                with self.db.conn:
                    batches.remote_ended(self.db, self.batch_id, row.n, 1, "failed", None,
                                         f"no recipe {job.recipe} in this store", "")
                continue
            order = JobOrder(batch=self.batch_id, n=row.n, job=job, ask=self.ask, trace=self.trace,
                             recipe=recipe_files(recipe) if recipe else None,
                             recipe_version=recipe.version if recipe else None,
                             secrets_at=recorded_at(self.db, recipe) if recipe else None)
            app.send_task(TASK, args=[self.seal.seal(order.model_dump(mode="json"))])
            self.redis.set(keys.queued, "1", ex=KEEP_S)
            sent += 1
        return sent

    def follow(self, on_report: Callable[[Report], None], until_done: bool = True) -> None:
        """Applies the stream until every job of the batch has ended (or, without `until_done`,
        until the stream holds nothing more)."""
        while True:
            position = batches.stream_pos(self.db, self.batch_id)
            found = cast(Entries, self.redis.xread({self.stream: position}, count=50, block=READ_BLOCK_MS))
            for _stream, entries in found or []:
                for entry_id, fields in entries:
                    report = self._open(fields.get(b"m", b""))
                    with self.db.conn:
                        if report is not None:
                            self._apply(report)
                        batches.set_stream_pos(self.db, self.batch_id, entry_id.decode())
                    if report is not None:
                        on_report(report)
            self._pass_answers()
            if not found and not until_done:
                return
            if until_done and all(row.status in DONE for row in batches.jobs(self.db, self.batch_id)):
                return

    def _open(self, sealed: bytes) -> Report | None:
        try:
            report = Report.model_validate(self.seal.open(sealed))
        except (Unsealed, ValidationError) as exc:
            self._warn("unsealed", f"a report on the stream {self.stream} was refused ({str(exc).splitlines()[0]}); "
                                   "is GOALBOT_CLUSTER_KEY the same on every worker?")
            return None
        if report.batch != self.batch_id:
            self._warn("elsewhere", f"a report sealed for batch {report.batch} was found in batch {self.batch_id}'s "
                                    "stream and refused")
            return None
        return report

    def _apply(self, report: Report) -> None:
        n, attempt = report.job, report.attempt
        if report.kind == "started":
            batches.remote_started(self.db, self.batch_id, n, attempt, report.worker, report.at)
        elif report.kind == "changes" and report.changes is not None:
            apply(self.db, report.changes, host=report.worker)
            batches.remote_session(self.db, self.batch_id, n, attempt, report.changes.session_id)
        elif report.kind == "cut":
            batches.remote_cut(self.db, self.batch_id, n, attempt, report.reason)
        elif report.kind == "ended":
            batches.remote_ended(self.db, self.batch_id, n, attempt, report.status, report.session,
                                 report.reason, report.at)
            self._keep_recipes(report)

    def _keep_recipes(self, report: Report) -> None:
        """A rerun's patch is the recipe's next version here; its heals go to the version it ran."""
        for data in report.recipes:
            try:
                recipe = Recipe.model_validate_json(data)
            except ValidationError:
                continue
            kept = recipes.load(self.db, recipe.name)
            if kept is None or kept.model_dump(exclude={"version"}) != recipe.model_dump(exclude={"version"}):
                recipes.save(self.db, recipe)
        row = self.db.execute("select spec from batch_jobs where batch_id = ? and n = ?",
                              [self.batch_id, report.job]).fetchone()
        name = json.loads(row[0]).get("recipe") if row else None
        ran = recipes.load(self.db, name) if name else None
        healed: dict[int, Evidence] = {}
        for heal in report.heals:
            if heal.get("name") == name and isinstance(heal.get("position"), int):
                try:
                    healed[heal["position"]] = Evidence.model_validate_json(str(heal.get("evidence")))
                except ValidationError:
                    continue  # a heal that does not read is a heal forgotten: the next rerun finds the element
        if ran is not None and healed and report.session:
            recipes.remember_heals(self.db, ran, healed, report.session)

    def _pass_answers(self) -> None:
        for session_id in batches.running_sessions(self.db, self.batch_id):
            for kind, payload, by in queries.take_commands(self.db, session_id):
                said = Answer(batch=self.batch_id, session=session_id, kind=kind, payload=payload, by=by,
                              question=queries.latest_question(self.db, session_id))
                self.redis.rpush(commands_of(session_id), self.seal.seal(said.model_dump()))
                self.redis.expire(commands_of(session_id), KEEP_S)

    def _warn(self, key: str, text: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            print(f"goalbot: {text}", file=sys.stderr, flush=True)

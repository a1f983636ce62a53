"""The bus subscriber that writes every event and artifact to SQLite.

Events are queued by the publisher (cheap) and written by one thread in small transactions, so
the agent never waits on the disk. A session row is kept in step with its events in the same
transaction: the file is consistent whenever it is read, even after a crash.

A store locked by another process delays writes and never drops them. An event that cannot be
written as it is (it should not happen: events are made JSON-safe when they are made) is written
with its data replaced by why. A store that cannot be written at all (read-only, disk full,
damaged) ends the run loudly through `on_failure`: nobody is told a run succeeded that the store
does not hold.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import sqlite3
import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Callable

from goalbot.events import ENDINGS, Artifact, Bus, Event, EventType
from goalbot.payloads import ResumeData, TaskEndData, TaskStartData
from goalbot.tally import Tally
from storage.db import connect

_STATUS = {kind: status.value for kind, status in ENDINGS.items()}
_STOP = object()
Item = Event | Artifact


class StoreLost(Exception):
    """Nothing more can be written to the store."""


class Recorder:
    def __init__(self, path: Path, on_failure: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.db = connect(path)
        self.on_failure = on_failure
        self.failure: str | None = None  # why the store stopped taking events, once it did
        self._queue: queue.Queue[object] = queue.Queue()
        self.warned = False
        self._thread = threading.Thread(target=self._write_loop, name="goalbot-recorder", daemon=True)
        self._thread.start()

    def attach(self, bus: Bus) -> None:
        bus.subscribe(self._queue.put)
        bus.subscribe_artifacts(self._queue.put)

    def close(self, patience_s: float = 120.0) -> None:
        """Writes everything queued so far, then stops; gives up on a store locked for too long."""
        self._queue.put(_STOP)
        self._thread.join(patience_s)
        if self._thread.is_alive():
            self._lost(f"the store {self.path} stayed locked; the last events of this run could not be written")
            return
        self.db.close()

    def _lost(self, message: str) -> None:
        if self.failure is None:
            self.failure = message
            print(f"goalbot: {message}", file=sys.stderr, flush=True)
            if self.on_failure is not None:
                self.on_failure(message)

    def _write_loop(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < 200:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = _STOP in batch
            items = [item for item in batch if isinstance(item, (Event, Artifact))]
            if items and self.failure is None:
                try:
                    self._write(items)
                except StoreLost as exc:
                    self._lost(f"the store {self.path} cannot be written any more ({exc}); this run "
                               "is stopped, and what it did after this point is not stored")
            if stop:
                return

    def _write(self, items: list[Item]) -> None:
        try:
            self._commit(partial(self._write_all, items))
        except StoreLost:
            raise
        except Exception:  # one item spoils the batch: write the others, and that one as best it can
            for item in items:
                try:
                    self._commit(partial(self._write_item, item))
                except StoreLost:
                    raise
                except Exception as exc:
                    self._commit(partial(self._write_item, item, spoiled=exc), last=True)

    def _write_all(self, items: list[Item]) -> None:
        for item in items:
            self._write_item(item)

    def _commit(self, work: Callable[[], object], last: bool = False) -> None:
        """One transaction, tried again while another process holds the lock. A failure that is
        not a lock is raised (StoreLost when `last`, or when the file itself refuses writes)."""
        delay = 0.2
        while True:
            try:
                with self.db.atomic():  # one transaction: sqlite-utils' own writes nest inside it
                    work()
                return
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    if not self.warned:
                        print(f"goalbot: the store {self.path} is busy ({exc}); retrying", file=sys.stderr)
                        self.warned = True
                    time.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                raise StoreLost(str(exc)) from exc
            except (sqlite3.DatabaseError, OSError) as exc:
                raise StoreLost(str(exc)) from exc
            except Exception as exc:
                if last:
                    raise StoreLost(f"{type(exc).__name__}: {exc}") from exc
                raise

    def _write_item(self, item: Item, spoiled: Exception | None = None) -> None:
        if isinstance(item, Event):
            self._write_event(item, spoiled)
        elif spoiled is None:
            self._write_artifact(item)  # an artifact that cannot be written is left out; its event says so

    def _write_artifact(self, artifact: Artifact) -> None:
        # Plain SQL: an insert must never quietly create a table someone dropped.
        self.db.execute(
            "insert or replace into artifacts (id, session_id, kind, mime, ts, size, name, content) "
            "values (?, ?, ?, ?, ?, ?, ?, ?)",
            [artifact.id, artifact.session_id, artifact.kind, artifact.mime, artifact.ts.isoformat(),
             len(artifact.content), artifact.name, artifact.content],
        )

    def _write_event(self, event: Event, spoiled: Exception | None = None) -> None:
        data = {"unwritable": f"{type(spoiled).__name__}: {spoiled}"[:300]} if spoiled else event.data
        if event.type is EventType.TASK_START:
            start = None if spoiled else event.data_of(TaskStartData)
            described = ([start.goal, start.url, start.model, start.base_url, start.operator] if start
                         else ["(not stored)", None, None, None, None])
            self.db.execute(
                "insert or replace into sessions (id, goal, url, status, model, base_url, operator, "
                "started_at, pid, host) values (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                [event.session_id, *described, event.ts.isoformat(), os.getpid(), socket.gethostname()],
            )
        self.db.execute(
            "insert into events (session_id, seq, ts, type, actor, step, data) values (?, ?, ?, ?, ?, ?, ?)",
            [event.session_id, event.seq, event.ts.isoformat(), event.type.value, event.actor.value,
             event.step, json.dumps(data, ensure_ascii=False)],
        )
        if spoiled is None or event.type in _STATUS:
            self._update_counts(event)

    def _update_counts(self, event: Event) -> None:
        sql: str | None = None
        args: list[object] = []
        usage = Tally()
        if usage.add(event):
            # A call to a model without a price adds no cost; a session with none stays NULL.
            sql = ("update sessions set model_calls = model_calls + ?, model_errors = coalesce(model_errors, 0) + ?, "
                   "tokens_in = tokens_in + ?, tokens_out = tokens_out + ?"
                   + (", cost_usd = coalesce(cost_usd, 0) + ?" if usage.cost_usd is not None else "")
                   + " where id = ?")
            args = [usage.calls, usage.errors, usage.tokens_in, usage.tokens_out]
            args += [usage.cost_usd] if usage.cost_usd is not None else []
        elif event.type is EventType.STEP_START:
            sql, args = "update sessions set steps = steps + 1 where id = ?", []
        elif event.type is EventType.TASK_RESUME and event.data_of(ResumeData).resumed:
            # `goalbot resume`: the same session, running again in this process.
            sql = ("update sessions set status = 'running', finish_reason = NULL, ended_at = NULL, "
                   "pid = ?, host = ? where id = ?")
            args = [os.getpid(), socket.gethostname()]
        elif event.type in _STATUS:
            sql = "update sessions set status = ?, finish_reason = ?, answer = ?, ended_at = ? where id = ?"
            end = event.data_of(TaskEndData)
            args = [_STATUS[event.type], end.reason, end.answer, event.ts.isoformat()]
        if sql:
            self.db.execute(sql, [*args, event.session_id])

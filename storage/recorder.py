"""The bus subscriber that writes every event and artifact to SQLite.

Events are queued by the publisher (cheap) and written by one thread in small transactions, so
the agent never waits on the disk. A session row is kept in step with its events in the same
transaction: the file is consistent whenever it is read, even after a crash.
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
from pathlib import Path

from goalbot.events import Artifact, Bus, Event, EventType
from storage.db import connect

_STATUS = {EventType.TASK_OK: "ok", EventType.TASK_FAIL: "failed", EventType.TASK_CANCEL: "cancelled"}
_STOP = object()


class Recorder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = connect(path)
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
            print(f"goalbot: the store {self.path} stayed locked; the last events of this run "
                  "could not be written", file=sys.stderr)
            return
        self.db.close()

    def _write_loop(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < 200:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = _STOP in batch
            items = [item for item in batch if item is not _STOP]
            if items:
                self._write_with_retry(items)
            if stop:
                return

    def _write_with_retry(self, items: list[object]) -> None:
        delay = 0.2
        while True:
            try:
                with self.db.conn:
                    for item in items:
                        if isinstance(item, Event):
                            self._write_event(item)
                        elif isinstance(item, Artifact):
                            self._write_artifact(item)
                return
            except sqlite3.OperationalError as exc:
                # Another process holds the write lock longer than busy_timeout: keep the batch
                # and try again rather than drop events.
                if not self.warned:
                    print(f"goalbot: the store {self.path} is busy ({exc}); retrying", file=sys.stderr)
                    self.warned = True
                time.sleep(delay)
                delay = min(delay * 2, 5.0)

    def _write_artifact(self, artifact: Artifact) -> None:
        self.db["artifacts"].insert(
            {
                "id": artifact.id, "session_id": artifact.session_id, "kind": artifact.kind,
                "mime": artifact.mime, "ts": artifact.ts.isoformat(), "size": len(artifact.content),
                "name": artifact.name, "content": artifact.content,
            },
            replace=True,
        )

    def _write_event(self, event: Event) -> None:
        if event.type is EventType.TASK_START:
            d = event.data
            self.db["sessions"].insert(
                {
                    "id": event.session_id, "goal": d["goal"], "url": d.get("url"),
                    "status": "running", "model": d.get("model"), "base_url": d.get("base_url"),
                    "operator": d.get("operator"), "started_at": event.ts.isoformat(),
                    "pid": os.getpid(), "host": socket.gethostname(),
                },
                replace=True,
            )
        self.db["events"].insert(
            {
                "session_id": event.session_id, "seq": event.seq, "ts": event.ts.isoformat(),
                "type": event.type.value, "actor": event.actor.value, "step": event.step,
                "data": json.dumps(event.data, ensure_ascii=False),
            }
        )
        self._update_counts(event)

    def _update_counts(self, event: Event) -> None:
        sql: str | None = None
        args: list[object] = []
        if event.type is EventType.LLM_CALL:
            # A call to a model without a price adds no cost; a session with none stays NULL.
            cost = event.data.get("cost_usd")
            sql = ("update sessions set model_calls = model_calls + 1, tokens_in = tokens_in + ?, "
                   "tokens_out = tokens_out + ?"
                   + (", cost_usd = coalesce(cost_usd, 0) + ?" if cost is not None else "")
                   + " where id = ?")
            args = [event.data.get("tokens_in", 0), event.data.get("tokens_out", 0)]
            args += [cost] if cost is not None else []
        elif event.type is EventType.LLM_ERROR:
            sql, args = "update sessions set model_errors = coalesce(model_errors, 0) + 1 where id = ?", []
        elif event.type is EventType.STEP_START:
            sql, args = "update sessions set steps = steps + 1 where id = ?", []
        elif event.type is EventType.TASK_RESUME and event.data.get("resumed"):
            # `goalbot resume`: the same session, running again in this process.
            sql = ("update sessions set status = 'running', finish_reason = NULL, ended_at = NULL, "
                   "pid = ?, host = ? where id = ?")
            args = [os.getpid(), socket.gethostname()]
        elif event.type in _STATUS:
            sql = "update sessions set status = ?, finish_reason = ?, answer = ?, ended_at = ? where id = ?"
            args = [_STATUS[event.type], event.data.get("reason", ""), event.data.get("answer", ""),
                    event.ts.isoformat()]
        if sql:
            self.db.execute(sql, [*args, event.session_id])

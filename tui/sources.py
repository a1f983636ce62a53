"""Where the dashboard's events come from: the bus of a session running in this process, or the
store, for a session running in another one (`goalbot attach`).

Publishers only append to a deque, which never blocks them, and wake the screen once; the screen
drains everything that waits in one go, so a burst of events costs one redraw, not one per event,
and a quiet session costs nothing at all.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict, deque
from pathlib import Path
from typing import Callable

from goalbot.events import Artifact, Bus, Event
from storage import queries
from storage.db import connect

KEPT_SCREENSHOTS = 8  # a live run's latest pictures, held until their OBSERVATION arrives
DRAIN_LIMIT = 20_000  # events drawn in one go; the rest wake the screen again

Wake = Callable[[], None]


def _nobody_listens() -> None:
    return None


class EventSource:
    def __init__(self) -> None:
        self._pending: deque[Event] = deque()
        self._lock = threading.Lock()
        self._woken = False  # the screen was told, and has not drained since
        self._wake: Wake = _nobody_listens
        self.problem = ""  # why events may be late (a locked store), for the person

    def on_arrival(self, wake: Wake) -> None:
        """`wake` is called, from any thread, when events (or a problem) wait and the screen was
        not told yet; the screen then calls `drain`."""
        self._wake = wake
        with self._lock:
            waiting = bool(self._pending)
            self._woken = waiting
        if waiting:
            wake()

    def push(self, event: Event) -> None:
        with self._lock:
            self._pending.append(event)
            tell, self._woken = not self._woken, True
        if tell:
            self._wake()

    def drain(self) -> list[Event]:
        with self._lock:
            events = [self._pending.popleft() for _ in range(min(len(self._pending), DRAIN_LIMIT))]
            self._woken = bool(self._pending)
        if self._woken:
            self._wake()
        return events

    def _set_problem(self, problem: str) -> None:
        if problem != self.problem:
            self.problem = problem
            self._wake()

    def screenshot(self, artifact_id: str) -> bytes | None:
        """The picture an OBSERVATION names, when this source can still give it."""
        return None

    def close(self) -> None:
        self._wake = _nobody_listens


class BusSource(EventSource):
    def __init__(self, bus: Bus) -> None:
        super().__init__()
        self._pictures: OrderedDict[str, bytes] = OrderedDict()
        bus.subscribe(self.push)
        bus.subscribe_artifacts(self._keep)

    def _keep(self, artifact: Artifact) -> None:
        if artifact.kind != "screenshot":
            return
        self._pictures[artifact.id] = artifact.content
        while len(self._pictures) > KEPT_SCREENSHOTS:
            self._pictures.popitem(last=False)

    def screenshot(self, artifact_id: str) -> bytes | None:
        return self._pictures.get(artifact_id)


class StoreSource(EventSource):
    """Follows one session in the store from its first event. The run writes from another process
    and SQLite tells nobody, so a thread of its own looks a few times a second; the screen is woken
    only when it found something."""

    POLL_S = 0.2

    def __init__(self, db_path: Path, session_id: str) -> None:
        super().__init__()
        self.db_path = db_path
        self.session_id = session_id
        self._done = threading.Event()
        self._reader = connect(db_path, create=False)
        self._thread = threading.Thread(target=self._follow, name="goalbot-attach", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        db = connect(self.db_path, create=False)
        last = 0
        try:
            while True:
                try:
                    rows = list(queries.events_after(db, last, self.session_id, limit=5_000))
                    self._set_problem("")
                except sqlite3.Error as exc:  # locked or busy: look again soon, keep what we have
                    rows = []
                    self._set_problem(f"the store is not readable right now ({exc}); retrying")
                for last, event in rows:
                    self.push(event)
                if len(rows) < 5_000 and self._done.wait(self.POLL_S):
                    return
        finally:
            db.close()

    def screenshot(self, artifact_id: str) -> bytes | None:
        try:
            return queries.artifact_content(self._reader, artifact_id)
        except sqlite3.Error:
            return None

    def close(self) -> None:
        super().close()
        self._done.set()
        self._thread.join(2)
        self._reader.close()


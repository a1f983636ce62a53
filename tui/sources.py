"""Where the dashboard's events come from: the bus of a session running in this process, or the
store, for a session running in another one (`goalbot attach`).

Publishers only append to a deque, which never blocks them; the screen drains it on a timer, so a
burst of events costs one redraw, not one per event.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict, deque
from pathlib import Path

from goalbot.events import Artifact, Bus, Event
from storage import queries
from storage.db import connect

KEPT_SCREENSHOTS = 8  # a live run's latest pictures, held until their OBSERVATION arrives


class EventSource:
    def __init__(self) -> None:
        self._pending: deque[Event] = deque()
        self.problem = ""  # why events may be late (a locked store), for the person

    def push(self, event: Event) -> None:
        self._pending.append(event)

    def drain(self, limit: int = 20_000) -> list[Event]:
        events: list[Event] = []
        while self._pending and len(events) < limit:
            events.append(self._pending.popleft())
        return events

    def screenshot(self, artifact_id: str) -> bytes | None:
        """The picture an OBSERVATION names, when this source can still give it."""
        return None

    def close(self) -> None:
        pass


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
    """Follows one session in the store from its first event, a few times a second."""

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
                    self.problem = ""
                except sqlite3.Error as exc:  # locked or busy: look again soon, keep what we have
                    rows, self.problem = [], f"the store is not readable right now ({exc}); retrying"
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
        self._done.set()
        self._thread.join(2)
        self._reader.close()


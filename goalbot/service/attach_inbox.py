"""Carries what `goalbot attach` decides, written as rows in the store, to the session running here.

Any run reads its inbox, so a plan started at one SSH login can be approved from a later one. A
thread polls the store a few times a second; a command only reaches the session once it started.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from goalbot.agents.control import SessionControl
from storage import queries
from storage.db import StoreError, connect

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

POLL_S = 0.25


class CommandInbox:
    def __init__(self, db_path: Path, session_id: str, control: SessionControl,
                 said: Callable[[str], None] = lambda _: None) -> None:
        self.db_path = db_path
        self.session_id = session_id
        self.control = control
        self.said = said
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._db: sqlite_utils.Database | None = None
        self._thread = threading.Thread(target=self._poll, name="goalbot-inbox", daemon=True)

    def start(self) -> None:
        try:
            self._db = connect(self.db_path)
        except StoreError as exc:
            self.said(f"goalbot attach cannot reach this run: {exc}")
            return
        # A stop or a pause sent from attach is read again right before each action, not only
        # when the poll comes round: nothing the person has stopped may still happen.
        self.control.checkpoint = self.read_now
        self._thread.start()

    def close(self) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join(2)
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def read_now(self) -> None:
        with self._lock:
            if self._db is None or not self.control.started:
                return
            try:
                commands = queries.take_commands(self._db, self.session_id)
            except sqlite3.Error:
                return  # a locked store: the commands wait for the next look
        for kind, payload, by in commands:
            if not self.control.command(kind, payload, by):
                self.said(f"goalbot attach sent an unknown command {kind!r}; ignored")

    def _poll(self) -> None:
        while not self._done.wait(POLL_S):
            self.read_now()

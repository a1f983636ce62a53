"""Carries what `goalbot attach` decides, written as rows in the store, to the session running here.

Any run reads its inbox, so a plan started at one SSH login can be approved from a later one. A
thread polls the store a few times a second; a command only reaches the session once it started.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Callable

from goalbot.agents.control import SessionControl
from storage import queries
from storage.db import StoreError, connect

POLL_S = 0.25


class CommandInbox:
    def __init__(self, db_path: Path, session_id: str, control: SessionControl,
                 said: Callable[[str], None] = lambda _: None) -> None:
        self.db_path = db_path
        self.session_id = session_id
        self.control = control
        self.said = said
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="goalbot-inbox", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._done.set()
        self._thread.join(2)

    def _poll(self) -> None:
        try:
            db = connect(self.db_path)
        except StoreError as exc:
            self.said(f"goalbot attach cannot reach this run: {exc}")
            return
        try:
            while not self._done.wait(POLL_S):
                if not self.control.started:
                    continue
                try:
                    commands = queries.take_commands(db, self.session_id)
                except sqlite3.Error:
                    continue  # a locked store: the commands wait for the next look
                for kind, payload, by in commands:
                    if not self.control.command(kind, payload, by):
                        self.said(f"goalbot attach sent an unknown command {kind!r}; ignored")
        finally:
            db.close()

"""What the person's keys do to a session: straight to its control when it runs in this process,
through the store when it runs in another one (`goalbot attach`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Protocol

from goalbot.agents.control import SessionControl
from goalbot.payloads import Command
from storage import queries
from storage.db import opened


class SteeringError(Exception):
    """The word could not be passed on; the message says why."""


class Steering(Protocol):
    carries_secrets: bool

    def send(self, kind: Command, **payload: Any) -> None:
        """Passes `kind` on with its payload (see `Command`), or raises SteeringError."""


class LocalSteering:
    carries_secrets = True

    def __init__(self, control: SessionControl) -> None:
        self.control = control

    def send(self, kind: Command, **payload: Any) -> None:
        try:
            self.control.command(kind, payload, by="dashboard")
        except RuntimeError as exc:  # the session has not started, or is over
            raise SteeringError(str(exc)) from exc


class StoreSteering:
    # An answer written to the store would sit in the file: a secret is typed where the run is.
    carries_secrets = False

    def __init__(self, db_path: Path, session_id: str) -> None:
        self.db_path = db_path
        self.session_id = session_id

    def send(self, kind: Command, **payload: Any) -> None:
        try:
            with opened(self.db_path, create=False) as db:
                queries.post_command(db, self.session_id, kind, payload, by="attach")
        except (sqlite3.Error, OSError) as exc:
            raise SteeringError(f"the store did not take it ({exc}); try again") from exc

"""How a session ends, and how its parts end it early."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel


class Status(StrEnum):
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"


class SessionResult(BaseModel):
    status: Status
    reason: str
    answer: str = ""
    detail: str = ""
    could_not_start: bool = False  # the browser or the screen never came up: a setup problem


class Finish(Exception):
    """Ends the session with this result, from anywhere in the loop."""

    def __init__(self, result: SessionResult) -> None:
        super().__init__(result.reason)
        self.result = result


def finish(status: Status, reason: str) -> Finish:
    return Finish(SessionResult(status=status, reason=reason))

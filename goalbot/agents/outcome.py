"""How a session ends, and how its parts end it early."""

from __future__ import annotations

from typing import Any, Callable, Protocol

from pydantic import BaseModel

from goalbot.events import Actor, Emitter, EventType
from goalbot.events import RunStatus as Status  # a session ends ok, failed or cancelled

_ENDING = {Status.OK: EventType.TASK_OK, Status.FAILED: EventType.TASK_FAIL, Status.CANCELLED: EventType.TASK_CANCEL}


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


class Run(Protocol):
    """What the command line and the dashboard drive: a `Session`, or a recipe's rerun."""

    @property
    def session_id(self) -> str: ...

    async def run(self) -> SessionResult: ...


def record_end(emitter: Emitter, scrub: Callable[[Any], Any], result: SessionResult) -> SessionResult:
    """The session's last event. The answer is printed and stored: a secret the page or the model
    repeated stays hidden."""
    result = SessionResult.model_validate(scrub(result.model_dump()))
    extra = {"detail": result.detail} if result.detail else {}
    emitter.emit(_ENDING[result.status], Actor.SYSTEM, None, reason=result.reason, answer=result.answer, **extra)
    return result

"""What the person can tell a running session: approve or reject a plan, allow or refuse what
needs their consent (going over a budget), stop.

The dashboard and the command line only ever call these methods; they never touch the browser.
Calls are safe from any thread.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel


class PlanDecision(BaseModel):
    approved: bool
    steps: list[str] | None = None  # the steps as the person left them, when approved
    feedback: str = ""
    by: str = "user"


class Consent(BaseModel):
    granted: bool
    by: str = "user"


class SessionControl:
    """`can_ask` is False when no person is there to answer (no terminal, no dashboard)."""

    def __init__(self, auto_approve: bool = False, can_ask: bool = True) -> None:
        self.auto_approve = auto_approve
        self.can_ask = can_ask
        self._loop: asyncio.AbstractEventLoop | None = None
        self._decisions: asyncio.Queue[PlanDecision] | None = None
        self._consents: asyncio.Queue[Consent] | None = None
        self._task: asyncio.Task[object] | None = None
        self._stop_requested = False
        self.awaiting_plan = False
        self.awaiting_consent = False

    def bind(self) -> None:
        """Called by the session from its own task, so other threads can reach it later."""
        self._loop = asyncio.get_running_loop()
        self._decisions = asyncio.Queue()
        self._consents = asyncio.Queue()
        self._task = asyncio.current_task()
        if self._stop_requested:
            self._task.cancel()  # type: ignore[union-attr]

    def _call(self, fn: object, *args: object) -> None:
        if self._loop is None:
            raise RuntimeError("the session has not started")
        self._loop.call_soon_threadsafe(fn, *args)  # type: ignore[arg-type]

    def approve(self, steps: list[str] | None = None, by: str = "user") -> None:
        self._call(self._put, PlanDecision(approved=True, steps=steps, by=by))

    def reject(self, feedback: str = "", by: str = "user") -> None:
        self._call(self._put, PlanDecision(approved=False, feedback=feedback, by=by))

    def grant(self, by: str = "user") -> None:
        self._call(self._consents_put, Consent(granted=True, by=by))

    def deny(self, by: str = "user") -> None:
        self._call(self._consents_put, Consent(granted=False, by=by))

    def stop(self) -> None:
        self._stop_requested = True
        if self._task is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def _put(self, decision: PlanDecision) -> None:
        assert self._decisions is not None
        self._decisions.put_nowait(decision)

    def _consents_put(self, consent: Consent) -> None:
        assert self._consents is not None
        self._consents.put_nowait(consent)

    async def consent(self) -> Consent:
        """The person's yes or no; no when nobody can be asked."""
        if not self.can_ask:
            return Consent(granted=False, by="nobody to ask")
        assert self._consents is not None
        while not self._consents.empty():
            self._consents.get_nowait()
        self.awaiting_consent = True
        try:
            return await self._consents.get()
        finally:
            self.awaiting_consent = False

    async def decide(self) -> PlanDecision:
        if self.auto_approve:
            return PlanDecision(approved=True, by="--yes")
        assert self._decisions is not None
        while not self._decisions.empty():  # a key pressed before this plan was shown
            self._decisions.get_nowait()
        self.awaiting_plan = True
        try:
            return await self._decisions.get()
        finally:
            self.awaiting_plan = False
        self.awaiting_consent = False

"""What the person can tell a running session: approve or reject a plan, stop.

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


class SessionControl:
    def __init__(self, auto_approve: bool = False) -> None:
        self.auto_approve = auto_approve
        self._loop: asyncio.AbstractEventLoop | None = None
        self._decisions: asyncio.Queue[PlanDecision] | None = None
        self._task: asyncio.Task[object] | None = None
        self._stop_requested = False
        self.awaiting_plan = False

    def bind(self) -> None:
        """Called by the session from its own task, so other threads can reach it later."""
        self._loop = asyncio.get_running_loop()
        self._decisions = asyncio.Queue()
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

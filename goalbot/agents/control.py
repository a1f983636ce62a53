"""What the person can tell a running session: approve, edit or reject a plan, say GO or NOT GO
to what needs their consent (a risky action, going over a budget), answer the agent's questions,
pause, resume, stop.

The dashboard and the command line only ever call these methods; they never touch the browser.
Calls are safe from any thread.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Generic, TypeVar

from pydantic import BaseModel

from goalbot.payloads import Command

T = TypeVar("T")
STOP_GRACE_S = 5.0  # how long a stop lets an action under way finish before it is cut


class PlanDecision(BaseModel):
    approved: bool
    steps: list[str] | None = None  # the steps as the person left them, when approved
    policies: dict[str, Any] | None = None  # the choice policies as the person left them, when edited
    feedback: str = ""
    by: str = "user"


class Consent(BaseModel):
    granted: bool
    by: str = "user"


class Reply(BaseModel):
    text: str
    declined: bool = False
    by: str = "user"


class _Mailbox(Generic[T]):
    """One kind of word from the person; `waiting` tells viewers a question is open."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[T] = asyncio.Queue()
        self.waiting = False

    def put(self, item: T) -> None:
        self.queue.put_nowait(item)

    async def get(self) -> T:
        while not self.queue.empty():  # a key pressed before this question was shown
            self.queue.get_nowait()
        self.waiting = True
        try:
            return await self.queue.get()
        finally:
            self.waiting = False


class SessionControl:
    """`can_ask` is False when no person is there to answer (no terminal, no dashboard)."""

    def __init__(self, auto_approve: bool = False, can_ask: bool = True) -> None:
        self.auto_approve = auto_approve
        self.can_ask = can_ask
        self._loop: asyncio.AbstractEventLoop | None = None
        self._plans: _Mailbox[PlanDecision] | None = None
        self._consents: _Mailbox[Consent] | None = None
        self._replies: _Mailbox[Reply] | None = None
        self._task: asyncio.Task[object] | None = None
        self._stop_requested = False
        self.stop_reason = "stopped by the person"
        self._running: asyncio.Event | None = None
        self._pause_wanted = False
        self._acting = False
        # Reads what the person decided elsewhere (goalbot attach) at once; run off the loop.
        self.checkpoint: Callable[[], None] | None = None

    def bind(self) -> None:
        """Called by the session from its own task, so other threads can reach it later."""
        self._loop = asyncio.get_running_loop()
        self._plans, self._consents, self._replies = _Mailbox(), _Mailbox(), _Mailbox()
        self._task = asyncio.current_task()
        self._running = asyncio.Event()
        if self._stop_requested:
            self._task.cancel()  # type: ignore[union-attr]

    def _send(self, box: _Mailbox[T] | None, item: T) -> None:
        if self._loop is None or box is None:
            raise RuntimeError("the session has not started")
        self._loop.call_soon_threadsafe(box.put, item)

    @property
    def started(self) -> bool:
        return self._loop is not None

    @property
    def awaiting_plan(self) -> bool:
        return bool(self._plans and self._plans.waiting)

    @property
    def awaiting_consent(self) -> bool:
        return bool(self._consents and self._consents.waiting)

    @property
    def awaiting_reply(self) -> bool:
        return bool(self._replies and self._replies.waiting)

    def approve(self, steps: list[str] | None = None, by: str = "user",
                policies: dict[str, Any] | None = None) -> None:
        self._send(self._plans, PlanDecision(approved=True, steps=steps, by=by, policies=policies))

    def reject(self, feedback: str = "", by: str = "user") -> None:
        self._send(self._plans, PlanDecision(approved=False, feedback=feedback, by=by))

    def grant(self, by: str = "user") -> None:
        self._send(self._consents, Consent(granted=True, by=by))

    def deny(self, by: str = "user") -> None:
        self._send(self._consents, Consent(granted=False, by=by))

    def answer(self, text: str, by: str = "user") -> None:
        self._send(self._replies, Reply(text=text, by=by))

    def decline(self, by: str = "user") -> None:
        self._send(self._replies, Reply(text="", declined=True, by=by))

    def command(self, kind: Command | str, payload: dict[str, Any], by: str) -> bool:
        """One word by name, as a viewer in another process sends it; False for an unknown kind."""
        try:
            word = Command(kind)
        except ValueError:
            return False
        match word:
            case Command.APPROVE:
                policies = payload.get("policies")
                self.approve(payload.get("steps"), by=by, policies=policies if isinstance(policies, dict) else None)
            case Command.REJECT:
                self.reject(str(payload.get("feedback", "")), by=by)
            case Command.GRANT:
                self.grant(by=by)
            case Command.DENY:
                self.deny(by=by)
            case Command.ANSWER:
                self.answer(str(payload.get("text", "")), by=by)
            case Command.DECLINE:
                self.decline(by=by)
            case Command.PAUSE:
                self.pause()
            case Command.RESUME:
                self.resume()
            case Command.STOP:
                self.stop()
        return True

    def stop(self, reason: str = "stopped by the person") -> None:
        """From any thread; `reason` is what the session's end says. Whatever the session waits on (the model, the person) is cut at once;
        an action under way is finished and recorded, and the stop takes effect right after it,
        before anything else happens to the page."""
        if not self._stop_requested:
            self.stop_reason = reason
        self._stop_requested = True
        if self._task is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop_now)

    def _stop_now(self) -> None:
        if self._task is None:
            return
        if not self._acting:
            self._task.cancel()
        elif self._loop is not None:  # an action that never ends (a frozen page) is cut after a grace
            self._loop.call_later(STOP_GRACE_S, self._cut)

    def _cut(self) -> None:
        if self._acting and self._task is not None:
            self._task.cancel()

    async def carry_out(self, action: Awaitable[T], cuttable: bool = False) -> T:
        """Runs one action to its end: cutting it short would leave a click done on the page and
        missing from the store. A `cuttable` one (a wait) touches nothing and is cut by a stop."""
        if cuttable:
            return await action
        self._acting = True
        try:
            return await action
        finally:
            self._acting = False

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def pause(self) -> None:
        """The session stops at its next safe point: before an action, a step or a plan."""
        self._pause_wanted = True

    def resume(self) -> None:
        self._pause_wanted = False
        if self._loop is not None and self._running is not None:
            self._loop.call_soon_threadsafe(self._running.set)

    @property
    def paused(self) -> bool:
        return self._pause_wanted

    async def before_action(self) -> None:
        """Right before an action: a stop the person asked for ends the session here, whatever
        was in flight when it was asked; a pause holds it here."""
        if self.checkpoint is not None:
            await asyncio.to_thread(self.checkpoint)
        if self._stop_requested:
            raise asyncio.CancelledError(self.stop_reason)

    async def wait_while_paused(self) -> None:
        """Returns once the person resumed (at once when nobody paused)."""
        while self._pause_wanted and self._running is not None:
            self._running.clear()
            await self._running.wait()

    async def decide(self) -> PlanDecision:
        if self.auto_approve:
            return PlanDecision(approved=True, by="--yes")
        assert self._plans is not None
        return await self._plans.get()

    async def consent(self, timeout_s: float | None = None) -> Consent:
        """The person's yes or no; no when nobody can be asked, or nobody answered in time."""
        if not self.can_ask:
            return Consent(granted=False, by="nobody to ask")
        assert self._consents is not None
        try:
            return await asyncio.wait_for(self._consents.get(), timeout_s)
        except TimeoutError:
            return Consent(granted=False, by=f"no answer within {timeout_s:g} s")

    async def reply(self) -> Reply:
        """The person's answer to the agent's question; declined when nobody can be asked."""
        if not self.can_ask:
            return Reply(text="", declined=True, by="nobody to ask")
        assert self._replies is not None
        return await self._replies.get()

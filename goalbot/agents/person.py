"""Putting a question to the person in charge, on the record: each question and each answer is
an event, and the run waits for the answer."""

from __future__ import annotations

from goalbot.agents.control import SessionControl
from goalbot.agents.observing import Camera
from goalbot.agents.risk import Risk
from goalbot.agents.secrets import Secrets, asks_for_secret
from goalbot.events import Actor, Emitter, EventType


class Person:
    def __init__(
        self, emitter: Emitter, control: SessionControl, secrets: Secrets, camera: Camera,
        approval_timeout_s: float | None = None, allow_risky: bool = False,
    ) -> None:
        """`camera` shows the person the screen as it is when a question is put."""
        self.emitter = emitter
        self.camera = camera
        self.control = control
        self.secrets = secrets
        self.secret_answers = 0
        self.approval_timeout_s = approval_timeout_s
        self.allow_risky = allow_risky

    async def go(self, risk: Risk, step: int | None) -> bool:
        """GO or NOT GO on a risky action. `--allow-risky` says GO for the person, except to
        leaving the allowed domains or carrying a secret elsewhere: only the person widens those.
        No answer within the approval timeout is NOT GO."""
        fields = {"kind": risk.kind.value, "what": risk.what, "where": risk.where}
        if self.allow_risky and not risk.widens_domains:
            granted, by = True, "--allow-risky"  # said in advance: nobody is asked
        else:
            self.emitter.emit(EventType.APPROVAL_REQUEST, Actor.NAVIGATOR, step,
                              screenshot=await self.camera.picture_now(), risky=True, **fields)
            consent = await self.control.consent(self.approval_timeout_s)
            granted, by = consent.granted, consent.by
        kind = EventType.APPROVAL_GRANTED if granted else EventType.APPROVAL_DENIED
        self.emitter.emit(kind, Actor.USER, step, by=by, risky=True, **fields)
        return granted

    async def keep_trying(self, reason: str, step: int | None) -> bool:
        """The run is going round in circles: whether the person wants it to go on."""
        self.emitter.emit(EventType.APPROVAL_REQUEST, Actor.SYSTEM, step, kind="no_progress",
                          what=f"{reason}. Keep trying?", screenshot=await self.camera.picture_now())
        consent = await self.control.consent(self.approval_timeout_s)
        kind = EventType.APPROVAL_GRANTED if consent.granted else EventType.APPROVAL_DENIED
        self.emitter.emit(kind, Actor.USER, step, kind="no_progress", what=reason, by=consent.by)
        return consent.granted

    async def checkpoint(self, what: str, step: int | None) -> bool:
        """GO / NOT GO with the screen: goalbot cannot go on surely by itself (a recipe's element
        it cannot find). `--allow-risky` does not answer this; silence is NOT GO."""
        self.emitter.emit(EventType.APPROVAL_REQUEST, Actor.SYSTEM, step, kind="checkpoint", what=what,
                          screenshot=await self.camera.picture_now())
        consent = await self.control.consent(self.approval_timeout_s)
        kind = EventType.APPROVAL_GRANTED if consent.granted else EventType.APPROVAL_DENIED
        self.emitter.emit(kind, Actor.USER, step, kind="checkpoint", what=what, by=consent.by)
        return consent.granted

    async def pause_point(self, step: int | None) -> None:
        """Where a stop or a pause the person asked for takes effect: before each action, step
        and plan."""
        await self.control.before_action()
        if self.control.paused:
            self.emitter.emit(EventType.TASK_PAUSE, Actor.USER, step, reason="paused by the person")
            await self.control.wait_while_paused()
            self.emitter.emit(EventType.TASK_RESUME, Actor.USER, step, by="the person")

    async def allow_more(self, reason: str, step: int | None) -> bool:
        """Going over a budget is the person's call."""
        self.emitter.emit(EventType.TASK_PAUSE, Actor.SYSTEM, step, reason=f"budget reached: {reason}")
        self.emitter.emit(EventType.APPROVAL_REQUEST, Actor.SYSTEM, step, kind="budget",
                          what=f"{reason}. Allow as much again?")
        consent = await self.control.consent()
        kind = EventType.APPROVAL_GRANTED if consent.granted else EventType.APPROVAL_DENIED
        self.emitter.emit(kind, Actor.USER, step, kind="budget", what=reason, by=consent.by)
        if consent.granted:
            self.emitter.emit(EventType.TASK_RESUME, Actor.USER, step, by=consent.by)
        return consent.granted

    async def answer(self, question: str, step: int, asker: Actor = Actor.NAVIGATOR) -> str | None:
        """The navigator's question (`call_user`); None when it was not answered.

        The answer to a question about a password or a code becomes a secret: the model gets
        only its reference, and types that.
        """
        secret = asks_for_secret(question)
        self.emitter.emit(EventType.ASK_USER, asker, step or None, question=question, secret=secret)
        reply = await self.control.reply()
        if reply.declined:
            self.emitter.emit(EventType.USER_REPLY, Actor.USER, step or None, answer="", declined=True,
                              by=reply.by)
            return None
        answer = reply.text
        if secret:
            self.secret_answers += 1
            answer = self.secrets.add(f"answer_{self.secret_answers}", reply.text)
        self.emitter.emit(EventType.USER_REPLY, Actor.USER, step or None, answer=answer, by=reply.by)
        return answer

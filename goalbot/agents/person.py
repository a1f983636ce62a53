"""Putting a question to the person in charge, on the record: each question and each answer is
an event, and the run waits for the answer."""

from __future__ import annotations

from goalbot.agents.control import SessionControl
from goalbot.agents.secrets import Secrets, asks_for_secret
from goalbot.events import Actor, Emitter, EventType


class Person:
    def __init__(self, emitter: Emitter, control: SessionControl, secrets: Secrets) -> None:
        self.emitter = emitter
        self.control = control
        self.secrets = secrets
        self.secret_answers = 0

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

    async def answer(self, question: str, step: int) -> str | None:
        """The navigator's question (`call_user`); None when it was not answered.

        The answer to a question about a password or a code becomes a secret: the model gets
        only its reference, and types that.
        """
        secret = asks_for_secret(question)
        self.emitter.emit(EventType.ASK_USER, Actor.NAVIGATOR, step, question=question, secret=secret)
        reply = await self.control.reply()
        if reply.declined:
            self.emitter.emit(EventType.USER_REPLY, Actor.USER, step, answer="", declined=True, by=reply.by)
            return None
        answer = reply.text
        if secret:
            self.secret_answers += 1
            answer = self.secrets.add(f"answer_{self.secret_answers}", reply.text)
        self.emitter.emit(EventType.USER_REPLY, Actor.USER, step, answer=answer, by=reply.by)
        return answer

"""Ask a role a question and get a usable answer: tell the model what was wrong and ask again,
send a shorter prompt when it does not fit, and answer in text when the endpoint takes no tools."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from goalbot.events import EventType
from goalbot.llm.answers import AnswerSpec
from goalbot.llm.authored import AuthoredPrompts, system_prompt
from goalbot.llm.client import (
    ROLE_ACTORS, ChatReply, ContextTooLong, ModelClient, ModelError, ToolsRefused, estimate_tokens,
)
from goalbot.llm.dialects import Dialect, DialectChoice
from goalbot.llm.kept import KeptRequests
from goalbot.llm.parsing import AnswerError

T = TypeVar("T")

# How far a prompt may shrink (0 = everything); each role decides what each level leaves out.
MAX_SHRINK = 5

Compose = Callable[[int], list[dict[str, Any]]]

# The roles an authoring profile writes for: the request whose answer was used is kept in the
# store, so `goalbot tune` can replay what the role saw and a person can see what it was asked.
KEPT_ROLES = frozenset({"planner", "patcher"})


class Dialogue:
    """The model client together with the dialect each role answers in, and the prompts a pinned
    authoring profile wrote (goalbot's own where it has none)."""

    def __init__(self, client: ModelClient, dialects: DialectChoice | None = None, retries: int = 2,
                 authored: AuthoredPrompts | None = None, kept: KeptRequests | None = None) -> None:
        self.client = client
        self.dialects = dialects or DialectChoice()
        self.retries = retries
        self.authored = authored
        self.kept = kept
        for role in self.dialects.chosen:
            if client.traits(client.config.model_for(role)).tools is False:
                self.dialects.fall_back(role)  # found out in an earlier run: no refused call to learn it again

    async def ask(self, role: str, compose: Compose, answer: AnswerSpec[T], step: int | None) -> T:
        """Raises AnswerError when every answer was unusable, ModelError when the endpoint failed."""
        corrections: list[dict[str, Any]] = []
        shrink = 0
        bad_answers = 0
        while True:
            dialect = self.dialects.current(role)
            system = {"role": "system", "content": system_prompt(role, self.authored) + answer.instructions(dialect)}
            messages = [system, *compose(shrink), *corrections]
            model = self.client.config.model_for(role)
            refused_at = self.client.traits(model).refused_prompt_tokens
            if refused_at and shrink < MAX_SHRINK and estimate_tokens(messages) >= refused_at:
                shrink += 1  # as long as one this endpoint refused before: cut before it is refused again
                continue
            try:
                reply = await self.client.chat(
                    role, messages, answer.tools(dialect), step, response_schema=answer.response_schema(dialect),
                    dialect=dialect.value, **({"shrink": shrink} if shrink else {}),
                )
            except ToolsRefused as exc:
                self.client.learn(model, tools=False)
                if not self.dialects.fall_back(role):
                    self.client.report_fault(role, step, exc.fault)
                    raise ModelError(f"{exc}; try --dialect json (or uitars)") from exc
                self.client.report_fault(role, step, exc.fault, note="asking for JSON text from now on")
                corrections = []
                continue
            except ContextTooLong as exc:
                sent = estimate_tokens(messages)
                if refused_at is None or sent < refused_at:
                    self.client.learn(model, refused_prompt_tokens=sent)
                shrink += 1
                if shrink > MAX_SHRINK:
                    self.client.report_fault(role, step, exc.fault)
                    raise ModelError(f"{exc}, even with the history and the page cut down") from exc
                self.client.report_fault(role, step, exc.fault, attempt=shrink,
                                         note=f"sending a shorter prompt ({shrink} of {MAX_SHRINK})")
                continue
            try:
                parsed = answer.parse(reply, dialect)
            except AnswerError as exc:
                bad_answers += 1
                problem = f"{exc} (the answer was cut off at the output limit)" if reply.truncated else str(exc)
                self.client.emitter.emit(
                    EventType.LLM_ERROR, ROLE_ACTORS[role], step, role=role,
                    model=self.client.config.model_for(role), message=f"unusable answer: {problem}",
                    attempt=bad_answers, said=bounded(self.client.redact(what_was_said(reply))),
                )
                if bad_answers > self.retries:
                    raise AnswerError(problem) from exc
                corrections = self._correction(reply, problem, answer.reminder(dialect), dialect)
                continue
            if self.kept is not None and role in KEPT_ROLES:
                self.kept.keep(self._sent(role, messages, reply.as_message()))
            return parsed

    def _sent(self, role: str, messages: list[dict[str, Any]], reply: dict[str, Any]) -> dict[str, Any]:
        """The request as it was sent (secrets scrubbed, pictures left out) and the answer used."""
        sent = [{"role": m["role"], "content": _text_of(m.get("content"))} for m in self.client.redact(messages)]
        return {"role": role, "profile": self.authored.profile if self.authored else None,
                "model": self.client.config.model_for(role), "messages": sent, "answer": self.client.redact(reply)}

    @staticmethod
    def _correction(reply: Any, problem: str, reminder: str, dialect: Dialect) -> list[dict[str, Any]]:
        """The unusable answer and what was wrong with it; only the latest one is kept."""
        messages: list[dict[str, Any]] = [reply.as_message()]
        if dialect is Dialect.TOOLS:
            messages += [{"role": "tool", "tool_call_id": c.id, "content": f"error: {problem}"}
                         for c in reply.tool_calls]
        messages.append({"role": "user", "content": f"Your answer could not be used: {problem}. {reminder}"})
        return messages


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if p.get("type") == "text" else "[picture]" for p in content)
    return str(content or "")


SAID_MOST_CHARS = 2000  # enough to see what went wrong; a model that wrote until its context filled is not kept whole


def what_was_said(reply: ChatReply) -> str:
    """The model's own words and calls, as a person would read them in `tail` or the report."""
    parts = [reply.content.strip()] if reply.content.strip() else []
    parts += [f"{call.name}({call.arguments})" for call in reply.tool_calls]
    return "\n".join(parts) or "(nothing: no text and no tool call)"


def bounded(said: str) -> str:
    """Cut after the secrets are scrubbed: a cut through a secret's value would leave part of it."""
    return said if len(said) <= SAID_MOST_CHARS else said[:SAID_MOST_CHARS] + " …(cut)"

"""Ask a role a question and, when the answer cannot be used, tell the model why and ask again."""

from __future__ import annotations

from importlib.resources import files
from typing import Any, Callable, TypeVar

from goalbot.events import EventType
from goalbot.llm.client import ROLE_ACTORS, ChatReply, ModelClient
from goalbot.llm.parsing import AnswerError

T = TypeVar("T")


def prompt(role: str) -> str:
    """The system prompt of a role; prompts live in files so they can be read and tuned alone."""
    return files("goalbot.llm").joinpath("prompts", f"{role}.md").read_text(encoding="utf-8")


async def ask(
    client: ModelClient,
    role: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    parse: Callable[[ChatReply], T],
    step: int | None,
    retries: int = 1,
) -> T:
    """Raises AnswerError when every attempt was unusable, ModelError when the endpoint failed."""
    conversation = list(messages)
    for attempt in range(retries + 1):
        reply = await client.chat(role, conversation, tools, step)
        try:
            return parse(reply)
        except AnswerError as exc:
            client.emitter.emit(
                EventType.LLM_ERROR, ROLE_ACTORS[role], step, role=role,
                model=client.config.model, message=f"unusable answer: {exc}",
            )
            if attempt == retries:
                raise
            conversation.append(reply.as_message())
            for call in reply.tool_calls:
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": f"error: {exc}"})
            conversation.append({
                "role": "user",
                "content": f"Your answer could not be used: {exc}. Answer again, calling the tools as described.",
            })
    raise AssertionError("unreachable")

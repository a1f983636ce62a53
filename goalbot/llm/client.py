"""The OpenAI-compatible chat client: one call per turn, every call counted as an event."""

from __future__ import annotations

import time
from typing import Any

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel, Field, SecretStr

from goalbot.events import Actor, Emitter, EventType


class ModelConfig(BaseModel):
    base_url: str
    model: str
    api_key: SecretStr = SecretStr("")
    timeout_s: float = 120.0
    max_retries: int = 2


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class ChatReply(BaseModel):
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0

    def as_message(self) -> dict[str, Any]:
        """The reply as an assistant message, to send back when asking for a correction."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


class ModelError(Exception):
    """The endpoint could not give an answer; the message names the endpoint and is for people."""


ROLE_ACTORS = {"planner": Actor.PLANNER, "navigator": Actor.NAVIGATOR, "validator": Actor.VALIDATOR}


class ModelClient:
    def __init__(self, config: ModelConfig, emitter: Emitter) -> None:
        self.config = config
        self.emitter = emitter
        self._client = AsyncOpenAI(
            base_url=config.base_url,
            # Local endpoints (vLLM, Ollama) take any key, but the client insists on one.
            api_key=config.api_key.get_secret_value() or "not-set",
            timeout=config.timeout_s,
            max_retries=config.max_retries,
        )

    async def close(self) -> None:
        await self._client.close()

    async def chat(
        self, role: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int | None
    ) -> ChatReply:
        actor = ROLE_ACTORS[role]
        started = time.perf_counter()
        try:
            response = await self._client.chat.completions.create(
                model=self.config.model,
                messages=messages,  # type: ignore[arg-type]
                tools=tools,  # type: ignore[arg-type]
                tool_choice="required",
            )
        except openai.APIError as exc:
            message = self._scrub(self._explain(exc))
            self.emitter.emit(
                EventType.LLM_ERROR, actor, step, role=role, model=self.config.model, message=message
            )
            raise ModelError(message) from exc
        latency_ms = int((time.perf_counter() - started) * 1000)
        usage = response.usage
        reply = ChatReply(
            tokens_in=usage.prompt_tokens if usage else 0,
            tokens_out=usage.completion_tokens if usage else 0,
        )
        if response.choices:
            message = response.choices[0].message
            reply.content = message.content or ""
            reply.tool_calls = [
                ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "")
                for c in (message.tool_calls or [])
                if getattr(c, "function", None) is not None
            ]
        self.emitter.emit(
            EventType.LLM_CALL, actor, step,
            role=role, model=response.model or self.config.model, latency_ms=latency_ms,
            tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
        )
        return reply

    def _scrub(self, message: str) -> str:
        # An endpoint may echo the key back in its error text; events must never carry it.
        key = self.config.api_key.get_secret_value()
        return message.replace(key, "<api key>") if key else message

    def _explain(self, exc: openai.APIError) -> str:
        where = self.config.base_url
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return f"the API key was rejected by {where} (HTTP {exc.status_code})"
        if isinstance(exc, openai.APITimeoutError):
            return f"{where} did not answer within {self.config.timeout_s:g}s"
        if isinstance(exc, openai.APIConnectionError):
            return f"cannot reach the model endpoint {where}"
        if isinstance(exc, openai.NotFoundError):
            return f"{where} does not know the model {self.config.model!r} (HTTP 404)"
        if isinstance(exc, openai.APIStatusError):
            return f"{where} answered HTTP {exc.status_code}: {exc.message}"
        return f"{where}: {exc.message}"

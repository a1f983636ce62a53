"""Reading a Chat Completions response body as servers really send it, not as the spec says.

Local servers and proxies answer in many shapes: tool-call arguments as an object instead of a
string, ids or names missing, content as a list of parts, usage empty or counted in strings, a
stream of server-sent events although none was asked for, a body that is an HTML page. Everything
with one meaning is understood here; anything else is a `BadBody` with a sentence for people,
which the client reports and retries like any other fault.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, Field

from goalbot.llm.repair import whole_text

MAX_TOKENS_A_CALL = 10**9  # beyond this a count is not a count


class BadBody(ValueError):
    """The body is not a chat completion; the message says what it is instead."""


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class Completion(BaseModel):
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str = ""
    model: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0


def read_completion(body: bytes, content_type: str = "") -> Completion:
    text = body.decode("utf-8", errors="replace")
    head = text.lstrip()[:200].lower()
    if "text/event-stream" in content_type or head.startswith(("data:", "event:")):
        return _from_stream(text)
    try:
        value = whole_text(json.loads(text))
    except RecursionError as exc:
        raise BadBody("sent JSON nested too deeply to read") from exc
    except ValueError as exc:  # not JSON, cut off, or a number too long to read
        if head.startswith(("<!doctype", "<html", "<")):
            raise BadBody("sent an HTML page instead of a chat completion (does the base URL end in /v1?)") from exc
        raise BadBody(f"sent an answer that is not valid JSON ({str(exc)[:80]})") from exc
    return _from_object(value)


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", type(None): "null"}.get(type(value), type(value).__name__)


def _from_object(value: Any) -> Completion:
    if not isinstance(value, dict):
        raise BadBody(f"sent a JSON {_kind(value)} instead of a chat completion object")
    choices = value.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = value.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else error
            raise BadBody(f"answered with an error: {str(message)[:200]}")
        raise BadBody("sent a completion without choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        message = {}  # `message: null`: an empty answer, which the role then asks again for
    usage = _object(value.get("usage"))
    model = value.get("model")
    return Completion(
        content=_content(message.get("content")),
        tool_calls=_calls(message),
        finish_reason=str(choice.get("finish_reason") or ""),
        model=None if model is None or isinstance(model, (dict, list)) else str(model),
        tokens_in=_count(usage.get("prompt_tokens", usage.get("input_tokens"))),
        tokens_out=_count(usage.get("completion_tokens", usage.get("output_tokens"))),
    )


def _object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: a field of the wrong type is no field."""
    return value if isinstance(value, dict) else {}


def _content(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # parts: [{"type": "text", "text": "…"}, …]
        texts = [part if isinstance(part, str) else str(part["text"]) for part in content
                 if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))]
        return "".join(texts)
    return json.dumps(content, ensure_ascii=False) if isinstance(content, dict) else str(content)


def _arguments(arguments: Any) -> str:
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)  # an object where a string was due


def _calls(message: dict[str, Any]) -> list[ToolCall]:
    raw = message.get("tool_calls")
    if not isinstance(raw, list):
        raw = []
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        raw = [*raw, {"function": legacy}]
    calls = []
    for number, call in enumerate(raw, 1):
        if not isinstance(call, dict):
            continue
        function = call["function"] if isinstance(call.get("function"), dict) else call
        name = function.get("name")
        calls.append(ToolCall(
            id=str(call.get("id") or f"call_{number}"),
            name=name if isinstance(name, str) else "",
            arguments=_arguments(function.get("arguments")),
        ))
    return calls


def _count(value: Any) -> int:
    """A token count however it was written (int, float, numeric string); 0 when it is none."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str):
        try:
            value = float(value.strip()) if len(value) < 30 else 0
        except ValueError:
            return 0
    if isinstance(value, float):
        value = round(value) if math.isfinite(value) else 0
    if not isinstance(value, int):
        return 0
    return max(0, min(value, MAX_TOKENS_A_CALL))


def _from_stream(text: str) -> Completion:
    """Server-sent events (`data: {chunk}` lines) put together into one completion."""
    content: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    last: dict[str, Any] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            chunk = whole_text(json.loads(line[5:]))
        except (ValueError, RecursionError):
            continue
        if not isinstance(chunk, dict):
            continue
        last = chunk
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        delta = choice.get("delta") or choice.get("message") or {}
        if not isinstance(delta, dict):
            continue
        content.append(_content(delta.get("content")))
        for position, call in enumerate(delta.get("tool_calls") or []):
            if not isinstance(call, dict):
                continue
            slot = calls.setdefault(call.get("index", position) if isinstance(call.get("index"), int) else position,
                                    {"id": "", "name": "", "arguments": ""})
            function = _object(call.get("function"))
            slot["id"] = slot["id"] or str(call.get("id") or "")
            name = function.get("name")
            slot["name"] += name if isinstance(name, str) else ""
            slot["arguments"] += _arguments(function.get("arguments"))
        if choice.get("finish_reason"):
            last["finish_reason"] = choice["finish_reason"]
    if not last:
        raise BadBody("sent a stream of events with no completion in it")
    usage = _object(last.get("usage"))
    return Completion(
        content="".join(content),
        tool_calls=[ToolCall(id=c["id"] or f"call_{n}", name=c["name"], arguments=c["arguments"])
                    for n, c in sorted(calls.items())],
        finish_reason=str(last.get("finish_reason") or ""),
        model=str(last["model"]) if isinstance(last.get("model"), (str, int, float)) else None,
        tokens_in=_count(usage.get("prompt_tokens")), tokens_out=_count(usage.get("completion_tokens")),
    )

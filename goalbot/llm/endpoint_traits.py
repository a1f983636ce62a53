"""What an endpoint was found to accept, kept per endpoint and model in a small file beside the
store, so the next run asks the way that works from its first call instead of being refused again:
`tool_choice` or not, tool calls or JSON text, which form of `response_format`, and how long a
prompt it refused. A file that cannot be read or written is no reason to fail a run: what is not
remembered is found out again."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from goalbot.defaults import data_home

ResponseForm = Literal["json_schema", "json_object", "none"]
# The OpenAI form first (vLLM, Ollama, OpenAI), then llama-cpp-python's, then none at all.
RESPONSE_FORMS: tuple[ResponseForm, ...] = ("json_schema", "json_object", "none")
MAX_ENDPOINTS = 200
_LOCK = threading.Lock()


class EndpointTraits(BaseModel):
    tool_choice: bool | None = None  # False: refused, so requests go without it
    tools: bool | None = None  # False: tool calls refused, so `auto` asks for JSON text
    response_format: ResponseForm | None = None  # the form that was accepted or is left to try
    refused_prompt_tokens: int | None = None  # the smallest prompt (estimated) it refused as too long
    max_tokens: bool | None = None  # False: refused (OpenAI's reasoning models), max_completion_tokens instead
    updated_at: str | None = None

    def words(self) -> list[str]:
        """Each trait a person should know, in words."""
        said = []
        if self.tool_choice is False:
            said.append("refuses tool_choice: requests are sent without it")
        if self.tools is False:
            said.append("takes no tool calls: --dialect auto asks for JSON text")
        if self.response_format == "json_object":
            said.append('takes response_format only as {"type": "json_object", "schema": …} (llama.cpp\'s form)')
        elif self.response_format == "none":
            said.append("takes no response_format: --dialect structured sends plain JSON instructions")
        elif self.response_format == "json_schema":
            said.append("takes response_format with a JSON schema: --dialect structured is held to it")
        if self.max_tokens is False:
            said.append("refuses max_tokens: the answer's limit is sent as max_completion_tokens")
        if self.refused_prompt_tokens:
            said.append(f"refused a prompt of about {self.refused_prompt_tokens} tokens: longer ones are cut first")
        return said


def traits_path() -> Path:
    return data_home() / "endpoints.json"


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')} {model}"


def _read() -> dict[str, EndpointTraits]:
    try:
        raw = json.loads(traits_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    found = {}
    for key, value in list(raw.items())[-MAX_ENDPOINTS:]:
        try:
            found[str(key)] = EndpointTraits.model_validate(value)
        except ValidationError:
            continue  # one damaged entry forgets that endpoint only
    return found


def recalled(base_url: str, model: str) -> EndpointTraits:
    return _read().get(_key(base_url, model), EndpointTraits())


def remember(base_url: str, model: str, **changes: object) -> EndpointTraits:
    """Merges `changes` into what is kept for this endpoint and model; returns the whole."""
    with _LOCK:
        known = _read()
        key = _key(base_url, model)
        traits = known.pop(key, EndpointTraits()).model_copy(
            update={**changes, "updated_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        known[key] = traits  # the newest last: the oldest are forgotten first
        _write({k: v.model_dump(exclude_none=True) for k, v in list(known.items())[-MAX_ENDPOINTS:]})
        return traits


def _write(document: dict[str, object]) -> None:
    path = traits_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".endpoints-", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
        os.replace(temporary, path)  # two runs writing at once: one wins whole, none is torn
    except OSError:
        pass

"""What a failed call to the endpoint means, and how long to wait before trying again.

The `openai` client's own retries are switched off: goalbot retries itself, so every attempt is
an event in the store and the person sees why a run is slow.
"""

from __future__ import annotations

import email.utils
import random
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from goalbot import defaults as D
from goalbot.llm.wire import BadBody

if TYPE_CHECKING:
    import openai

_CONTEXT_TOO_LONG = re.compile(
    r"context.length|context.window|maximum context|too many tokens|prompt is too long"
    r"|reduce the length|input is too long|exceeds? the (?:model'?s? )?(?:max|limit)",
    re.IGNORECASE,
)
_TOOL_CHOICE = re.compile(r"tool.choice", re.IGNORECASE)
_RESPONSE_FORMAT = re.compile(r"response.format|json.schema", re.IGNORECASE)
_MAX_TOKENS = re.compile(r"max_tokens", re.IGNORECASE)
_NO_TOOLS = re.compile(r"\btools?\b|function.call", re.IGNORECASE)


class RetryPolicy(BaseModel):
    """Exponential backoff with full jitter, capped; Retry-After wins when the server sends it."""

    retries: int = Field(D.MODEL_RETRIES, ge=0, description="Attempts after the first one.")
    base_s: float = Field(1.0, ge=0)
    max_wait_s: float = Field(60.0, ge=0)

    def wait_s(self, attempt: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_wait_s)
        ceiling = min(self.base_s * 2 ** (attempt - 1), self.max_wait_s)
        # Half fixed, half random: spread out, yet never an instant retry that hammers the server.
        return ceiling / 2 + random.uniform(0, ceiling / 2)


@dataclass(frozen=True)
class Fault:
    """One failed attempt, read: a message for people, and what to do about it."""

    message: str
    retryable: bool = False
    retry_after_s: float | None = None
    context_too_long: bool = False
    tool_choice_refused: bool = False
    tools_refused: bool = False
    response_format_refused: bool = False
    unexplained: bool = False  # a server error with no word of why
    timed_out: bool = False  # given up on: the server may still be working on it
    max_tokens_refused: bool = False
    status: int | None = None


def retry_after(response: Any) -> float | None:
    """Seconds the server asks us to wait (Retry-After-Ms, Retry-After in seconds or as a date)."""
    if response is None:
        return None
    headers = response.headers
    if "retry-after-ms" in headers:
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return email.utils.parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None  # a header we cannot read is no reason to fail the call


def read_fault(exc: Exception, endpoint: str, model: str, timeout_s: float) -> Fault:
    import openai  # the client that raised `exc` has loaded it
    if isinstance(exc, BadBody):  # an answer, but not a chat completion: maybe the next one is
        return Fault(f"{endpoint} {exc}", retryable=True)
    if isinstance(exc, ValueError):  # the body was not JSON (cut off, or not an API at all)
        return Fault(f"{endpoint} sent an answer that is not valid JSON", retryable=True)
    if isinstance(exc, (openai.APITimeoutError, TimeoutError)):
        return Fault(f"{endpoint} did not answer within {timeout_s:g}s", retryable=True, timed_out=True)
    if isinstance(exc, openai.APIConnectionError):
        # The HTTP library underneath is the openai package's business; its error names are stable.
        if type(exc.__cause__).__name__ in ("ConnectError", "ConnectionRefusedError"):
            return Fault(f"cannot reach the model endpoint {endpoint}", retryable=True)
        return Fault(f"the connection to {endpoint} broke before the answer was complete", retryable=True)
    if isinstance(exc, openai.APIResponseValidationError):
        return Fault(f"{endpoint} sent an answer that is not valid JSON", retryable=True)
    if not isinstance(exc, openai.APIStatusError):
        return Fault(f"{endpoint}: {exc}", retryable=True)
    status = exc.status_code
    text = _error_text(exc)
    if status in (401, 403):
        return Fault(f"the API key was rejected by {endpoint} (HTTP {status})", status=status)
    if status == 404 and "html" in exc.response.headers.get("content-type", ""):
        return Fault(f"{endpoint} answered with a web page (HTTP 404), not as an OpenAI-compatible API; "
                     "such addresses usually end in /v1", status=status)
    if status == 404:
        return Fault(f"{endpoint} does not know the model {model!r} (HTTP 404); goalbot doctor shows the names "
                     "it lists", status=status)
    if status == 429:
        return Fault(f"{endpoint} is rate limiting (HTTP 429)", retryable=True,
                     retry_after_s=retry_after(exc.response), status=status)
    # A refusal that names what it refuses is the same on every attempt, whatever its status (some
    # servers answer 500): adapted to at once, never retried as a passing fault.
    if status == 413 or _CONTEXT_TOO_LONG.search(text) or _code(exc) == "context_length_exceeded":
        return Fault(f"the prompt is longer than {model!r} takes at {endpoint}", context_too_long=True,
                     status=status)
    if status < 500 and _MAX_TOKENS.search(text):  # "use 'max_completion_tokens' instead"
        return Fault(f"{endpoint} refuses max_tokens (HTTP {status}): {text}", max_tokens_refused=True,
                     status=status)
    if _TOOL_CHOICE.search(text):
        return Fault(f"{endpoint} refuses tool_choice (HTTP {status}): {text}", tool_choice_refused=True,
                     status=status)
    if _RESPONSE_FORMAT.search(text):
        return Fault(f"{endpoint} refuses this response_format (HTTP {status}): {text}", response_format_refused=True,
                     status=status)
    if status >= 500 or status in (408, 409):
        return Fault(f"{endpoint} failed (HTTP {status}): {text}", retryable=True,
                     retry_after_s=retry_after(exc.response), status=status,
                     unexplained=status >= 500 and not _said(exc))
    if _NO_TOOLS.search(text):
        return Fault(f"{model!r} at {endpoint} does not take tool calls: {text}", tools_refused=True,
                     status=status)
    return Fault(f"{endpoint} answered HTTP {status}: {text}", status=status)


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return exc.message[:300]


def _said(exc: openai.APIStatusError) -> bool:
    """Whether the error body says anything (the client's own "Error code: 500" is not a reason)."""
    body = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(inner, dict):
        return bool(str(inner.get("message") or "").strip())
    return bool(str(inner or "").strip())


def _code(exc: openai.APIStatusError) -> str | None:
    code = getattr(exc, "code", None)
    return str(code) if code else None

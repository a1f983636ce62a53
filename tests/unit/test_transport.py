"""How failures are read and how long goalbot waits: worked numbers, and the error texts real
servers send (OpenAI, vLLM, Ollama, LM Studio)."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx2
import openai
import pytest

from kit import run_cli
from goalbot.llm.dialects import Dialect, DialectError, parse_dialects
from goalbot.llm.transport import RetryPolicy, read_fault, retry_after
from goalbot.llm.usage import Limits, PriceTable, Price
from goalbot.tally import Tally

ENDPOINT = "http://127.0.0.1:9/v1"


def _status_error(status: int, body: dict[str, Any] | None, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx2.Request("POST", ENDPOINT + "/chat/completions")
    response = httpx2.Response(status, json=body or {}, headers=headers or {}, request=request)
    classes = {400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
               404: openai.NotFoundError, 413: openai.APIStatusError, 429: openai.RateLimitError}
    cls = classes.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    message = (body or {}).get("error", {}).get("message", "error") if isinstance((body or {}).get("error"), dict) else "error"
    return cls(message, response=response, body=(body or {}).get("error"))


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_s=1.0, max_wait_s=10.0)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0)]:
        waits = [policy.wait_s(attempt, None) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert max(waits) - min(waits) > ceiling / 10  # jitter spreads the retries out


def test_retry_after_wins_but_is_capped() -> None:
    policy = RetryPolicy(base_s=1.0, max_wait_s=30.0)
    assert policy.wait_s(1, 7.0) == 7.0
    assert policy.wait_s(1, 3600.0) == 30.0
    assert policy.wait_s(1, -5.0) == 0.0


def test_retry_after_in_every_form() -> None:
    def response(**headers: str) -> httpx2.Response:
        return httpx2.Response(429, headers=headers)

    assert retry_after(response(**{"retry-after": "12"})) == 12.0
    assert retry_after(response(**{"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    in_20s = email.utils.formatdate(time.time() + 20, usegmt=True)
    assert 18 <= retry_after(response(**{"retry-after": in_20s})) <= 21
    assert retry_after(response()) is None
    assert retry_after(response(**{"retry-after": "soon"})) is None


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "context_length_exceeded"),
        (400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).", None),  # vLLM
        (400, "prompt is too long: 9000 tokens > 8192 maximum", None),
        (400, "The number of tokens to keep from the initial prompt is greater than the context length", None),  # LM Studio
        (413, "Request Entity Too Large", None),
    ],
)
def test_context_too_long_in_the_words_of_each_server(status: int, message: str, code: str | None) -> None:
    fault = read_fault(_status_error(status, {"error": {"message": message, "code": code}}), ENDPOINT, "m", 60)
    assert fault.context_too_long and not fault.retryable


@pytest.mark.parametrize(
    ("message", "tool_choice"),
    [
        ("registry.ollama.ai/library/gemma2:latest does not support tools", False),  # Ollama
        ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', True),  # vLLM
        ("tool_choice 'required' is not supported", True),
        ("This model does not support function calling", False),
    ],
)
def test_tools_refused_in_the_words_of_each_server(message: str, tool_choice: bool) -> None:
    fault = read_fault(_status_error(400, {"error": {"message": message}}), ENDPOINT, "m", 60)
    assert fault.tool_choice_refused is tool_choice
    assert fault.tools_refused is not tool_choice


@pytest.mark.parametrize(
    ("status", "retryable", "says"),
    [
        (401, False, f"the API key was rejected by {ENDPOINT} (HTTP 401)"),
        (403, False, f"the API key was rejected by {ENDPOINT} (HTTP 403)"),
        (404, False, f"{ENDPOINT} does not know the model 'm' (HTTP 404)"),
        (429, True, f"{ENDPOINT} is rate limiting (HTTP 429)"),
        (500, True, f"{ENDPOINT} failed (HTTP 500)"),
        (502, True, f"{ENDPOINT} failed (HTTP 502)"),
        (400, False, f"{ENDPOINT} answered HTTP 400: temperature must be below 2"),
    ],
)
def test_status_codes(status: int, retryable: bool, says: str) -> None:
    body = {"error": {"message": "temperature must be below 2" if status == 400 else "no"}}
    fault = read_fault(_status_error(status, body, {"retry-after": "3"}), ENDPOINT, "m", 60)
    assert fault.retryable is retryable and says in fault.message and fault.status == status
    assert fault.retry_after_s == (3.0 if status in (429, 500, 502) else None)


@pytest.mark.parametrize("status", [400, 500])
def test_a_refusal_that_names_what_it_refuses_is_adapted_to_not_retried(status: int) -> None:
    """llama-cpp-python's server refuses tool_choice and long prompts with HTTP 500."""
    refused = read_fault(_status_error(status, {"error": {"message": "tool_choice 'required' is not supported"}}),
                         ENDPOINT, "m", 60)
    assert refused.tool_choice_refused and not refused.retryable and f"(HTTP {status})" in refused.message
    long = read_fault(_status_error(status, {"error": {"message": "maximum context length is 2048 tokens"}}),
                      ENDPOINT, "m", 60)
    assert long.context_too_long and not long.retryable


def test_timeouts_and_connections() -> None:
    request = httpx2.Request("POST", ENDPOINT)
    timeout = read_fault(openai.APITimeoutError(request=request), ENDPOINT, "m", 45)
    assert timeout.retryable and timeout.message == f"{ENDPOINT} did not answer within 45s"
    try:
        raise openai.APIConnectionError(request=request) from httpx2.ConnectError("refused")
    except openai.APIConnectionError as exc:
        refused = read_fault(exc, ENDPOINT, "m", 45)
    assert refused.retryable and refused.message == f"cannot reach the model endpoint {ENDPOINT}"


def test_prices_by_name_date_and_provider_prefix() -> None:
    table = PriceTable({"my-local": Price(input=0.0, output=0.0), "gpt-4o": Price(input=3.0, output=12.0)})
    assert table.cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert table.cost("gpt-4o-mini-2024-07-18", 2000, 1000) == pytest.approx(0.0009)
    assert table.cost("openai/gpt-4o", 1_000_000, 0) == pytest.approx(3.0)  # the config overrides
    assert table.cost("gpt-4o-2024-08-06", 0, 1_000_000) == pytest.approx(12.0)
    assert table.cost("my-local", 5000, 5000) == 0.0
    assert table.cost("llama3.1:8b", 5000, 5000) is None


def test_limits_ask_before_the_call_that_would_go_over() -> None:
    limits = Limits(max_calls=3, max_tokens=10_000)
    assert limits.exceeded(Tally(calls=2, tokens_in=1000), 500) is None
    assert "made 3 model calls; 3 were allowed" in limits.exceeded(Tally(calls=3), 0)
    assert "9,800 tokens" in limits.exceeded(Tally(calls=1, tokens_in=9000, tokens_out=800), 500)
    raised = limits.raised(Tally(calls=3))
    assert raised.exceeded(Tally(calls=5), 0) is None and raised.exceeded(Tally(calls=6), 0)


def test_dialect_flags() -> None:
    assert parse_dialects(["json"]) == dict.fromkeys(("planner", "navigator", "validator", "patcher", "extractor",
                                                      "matcher"), Dialect.JSON)
    chosen = parse_dialects(["tools", "navigator=uitars"])
    assert chosen["navigator"] is Dialect.UITARS and chosen["planner"] is Dialect.TOOLS
    with pytest.raises(DialectError, match="choose auto|tools|uitars|json"):
        parse_dialects(["xml"])
    with pytest.raises(DialectError, match="the roles are planner, navigator, validator, patcher"):
        parse_dialects(["pilot=json"])


def test_a_bad_dialect_flag_is_one_line(tmp_path) -> None:
    result = run_cli("--db", str(tmp_path / "s.db"), "run", "x", "--yes", "--no-tui", "--dialect", "navigator=xml")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "goalbot: --dialect navigator=xml: choose auto|tools|uitars|json|structured"

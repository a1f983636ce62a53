"""The OpenAI-compatible chat client: every attempt an event, every token counted, faults retried."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from pydantic import BaseModel, Field, SecretStr

from goalbot import defaults as D
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.endpoint_traits import RESPONSE_FORMS, EndpointTraits, ResponseForm, recalled, remember
from goalbot.llm.transport import Fault, RetryPolicy, read_fault
from goalbot.llm.usage import Limits, PriceTable
from goalbot.llm.wire import BadBody, Completion, ToolCall, read_completion
from goalbot.tally import Tally

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# The patcher: a recipe's rerun only; the extractor: a run with --output-schema only; the
# matcher: a typed goal whose words do not surely fit the recipe it may be.
ROLES = ("planner", "navigator", "validator", "patcher", "extractor", "matcher")
ROLE_ACTORS = {"planner": Actor.PLANNER, "navigator": Actor.NAVIGATOR, "validator": Actor.VALIDATOR,
               "patcher": Actor.PLANNER, "extractor": Actor.NAVIGATOR, "matcher": Actor.PLANNER,
               # `goalbot tune` only: the task model its programs ask, and GEPA's reflection model
               "author": Actor.PLANNER, "reflector": Actor.SYSTEM}


class ModelConfig(BaseModel):
    base_url: str
    model: str
    role_models: dict[str, str] = Field(default_factory=dict, description="A different model per role.")
    api_key: SecretStr = SecretStr("")
    timeout_s: float = D.MODEL_TIMEOUT_S
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    max_answer_tokens: int | None = None  # sent as max_tokens; None: each role's own (ROLE_ANSWER_TOKENS)

    def model_for(self, role: str) -> str:
        return self.role_models.get(role) or self.model


class ChatReply(BaseModel):
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    truncated: bool = Field(False, description="The model stopped at its output limit.")

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


class AskDifferently(ModelError):
    """The endpoint refused this request but may take another; the caller reports the fault."""

    def __init__(self, message: str, fault: Fault) -> None:
        super().__init__(message)
        self.fault = fault


class ContextTooLong(AskDifferently):
    """The prompt does not fit the model: send less and try again."""


class ToolsRefused(AskDifferently):
    """The endpoint does not take tool calls: ask for a text answer instead."""


class BudgetStop(ModelError):
    """The person (or nobody, when nobody can be asked) declined to go over a budget."""


BudgetAsk = Callable[[str, int | None], Awaitable[bool]]


async def _nobody(_reason: str, _step: int | None) -> bool:
    return False


def _unchanged(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class ModelSetup:
    """What a session needs to make its model client; the session adds what only it knows (the
    secrets to keep out of prompts, the person to ask about a budget)."""

    config: ModelConfig
    prices: PriceTable | None = None
    limits: Limits | None = None


STRUCTURED_MAX_TOKENS = 768
UNTIL_FREE_MOST_S = 600.0  # the longest wait for an endpoint to finish a request given up on

# The longest answer each role is asked for when the person set none. A local server given no
# max_tokens writes until its context fills — minutes of a plan nobody reads — so every request
# carries one: a few times what a good answer of that role takes, never so little it cuts one off.
ROLE_ANSWER_TOKENS = {"planner": 1024, "navigator": 768, "validator": 512, "patcher": 2048,
                      "extractor": 4096, "matcher": 256, "author": 2048, "reflector": 2048}


def answer_limit(config: ModelConfig, role: str, structured: bool) -> int:
    """max_tokens for one request: the person's, else the role's (and a grammar's, which can hold
    a small model in a list it never closes, smaller still)."""
    if config.max_answer_tokens is not None:
        return config.max_answer_tokens
    limit = ROLE_ANSWER_TOKENS.get(role, ROLE_ANSWER_TOKENS["planner"])
    return min(limit, STRUCTURED_MAX_TOKENS) if structured else limit


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A rough count on the high side — four characters a token of the messages as they are sent
    (the chat format's roles and quotes count too), a thousand a picture: enough to see a budget
    coming before it is passed, no tokenizer needed."""
    images, sent = 0, []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            images += sum(1 for part in content if part.get("type") == "image_url")
            content = [part for part in content if part.get("type") != "image_url"]
        sent.append({**message, "content": content})
    return len(json.dumps(sent, ensure_ascii=False)) // 4 + images * 1000


class ModelClient:
    def __init__(
        self, config: ModelConfig, emitter: Emitter, prices: PriceTable | None = None,
        limits: Limits | None = None, ask_budget: BudgetAsk = _nobody,
        redact: Callable[[Any], Any] = _unchanged,
    ) -> None:
        self.config = config
        self.emitter = emitter
        self.prices = prices or PriceTable()
        self.limits = limits or Limits()
        self.ask_budget = ask_budget
        self.usage = Tally()  # counted from its own LLM_CALL events, as the store and the dashboard count
        self._longest_answer = 0  # tokens: what the next answer may cost on top of its prompt
        self._traits: dict[str, EndpointTraits] = {}  # by model: what its endpoint was found to accept
        self.redact = redact  # every prompt passes through it: no prompt carries a secret's value
        self._client: AsyncOpenAI | None = None

    def load_package(self) -> None:
        """Starts importing `openai` in a thread, so that its half second is spent before the first
        question, not in it. A session calls this once its page has opened: imported while the
        browser starts, it takes the CPU that start needs, and slows it by as much."""
        if "openai" not in sys.modules:
            threading.Thread(target=importlib.import_module, args=("openai",), name="import-openai",
                             daemon=True).start()

    def _openai(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                base_url=self.config.base_url,
                # Local endpoints (vLLM, Ollama) take any key, but the client insists on one.
                api_key=self.config.api_key.get_secret_value() or "not-set",
                timeout=self.config.timeout_s,
                max_retries=0,
            )
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    def traits(self, model: str) -> EndpointTraits:
        """What this endpoint and model were found to accept, in this run or an earlier one."""
        if model not in self._traits:
            self._traits[model] = recalled(self.config.base_url, model)
        return self._traits[model]

    def learn(self, model: str, **changes: object) -> None:
        """Kept for the rest of this run and for the next runs on this endpoint."""
        self._traits[model] = remember(self.config.base_url, model, **changes)

    async def chat(
        self, role: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], step: int | None,
        response_schema: dict[str, Any] | None = None, **tags: object,
    ) -> ChatReply:
        """One answer; raises ModelError (or a subclass saying what to change) when there is none.

        `tags` go into the LLM_CALL event as they are (the dialect, how far the prompt was cut).
        """
        import openai  # loaded by now, or being loaded: see load_package

        model = self.config.model_for(role)
        messages = self.redact(messages)
        await self._within_limits(messages, step)
        policy = self.config.retry
        attempt = 0
        without_tool_choice = False  # trying whether tool_choice is what a server fails on unsaid
        tried_without = False
        while True:
            attempt += 1
            started = time.perf_counter()
            try:
                # The deadline is the whole attempt's: a body trickled a byte at a time ends too.
                completion = await asyncio.wait_for(self._attempt(role, model, messages, tools, response_schema),
                                                    self.config.timeout_s)
            except (openai.APIError, json.JSONDecodeError, BadBody, asyncio.TimeoutError) as exc:
                fault = read_fault(exc, self.config.base_url, model, self.config.timeout_s)
                if without_tool_choice:  # it failed without tool_choice too: that was not the cause
                    without_tool_choice = False
                    self._traits[model] = self.traits(model).model_copy(update={"tool_choice": None})
                elif not tried_without and self._may_fail_on_tool_choice(fault, model, tools):
                    # llama-cpp-python's server fails on any tool_choice but "auto" with a bare 500.
                    without_tool_choice = tried_without = True
                    self._traits[model] = self.traits(model).model_copy(update={"tool_choice": False})
                    self.report_fault(role, step, fault, attempt,
                                      note="asking again without tool_choice, which some servers fail on unsaid")
                    continue
                if fault.tool_choice_refused and self.traits(model).tool_choice is not False and tools:
                    self.learn(model, tool_choice=False)
                    self.report_fault(role, step, fault, attempt, note="asking again without tool_choice")
                    continue
                if fault.max_tokens_refused and self.traits(model).max_tokens is not False:
                    self.learn(model, max_tokens=False)
                    self.report_fault(role, step, fault, attempt, note="asking again with max_completion_tokens")
                    continue
                form = self._response_form(model)
                if fault.response_format_refused and response_schema is not None and form != "none":
                    following = RESPONSE_FORMS[RESPONSE_FORMS.index(form) + 1]
                    self.learn(model, response_format=following)
                    self.report_fault(role, step, fault, attempt, note=f"asking again with response_format {following}")
                    continue
                if fault.context_too_long:
                    raise ContextTooLong(self._scrub(fault.message), fault) from exc
                if fault.tools_refused:
                    raise ToolsRefused(self._scrub(fault.message), fault) from exc
                retrying = fault.retryable and attempt <= policy.retries
                wait = policy.wait_s(attempt, fault.retry_after_s) if retrying else None
                if wait is not None and fault.timed_out:
                    self.report_fault(role, step, fault, attempt, wait_s=wait, note=(
                        f"trying again in {wait:.1f}s once the endpoint has finished the request given up "
                        f"on (waiting up to {self._until_free_most_s():g}s)"))
                    await self._until_free()
                else:
                    self.report_fault(role, step, fault, attempt, wait_s=wait)
                if wait is None:
                    raise self._error(fault, attempt) from exc
                await asyncio.sleep(wait)
                continue
            if without_tool_choice:
                self.learn(model, tool_choice=False)
            return self._reply(role, model, step, completion, started, attempt, tags)

    def _until_free_most_s(self) -> float:
        # The request given up on writes at most its max_tokens: about as long again as it was given.
        return min(2 * self.config.timeout_s, UNTIL_FREE_MOST_S)

    async def _until_free(self) -> None:
        """Waits, bounded, until the endpoint answers GET /models. A one-slot local server
        (llama-cpp-python's) goes on writing a request whose client went away, unless it streams,
        and answers nothing else meanwhile — its /models included: asked at once, the retry would
        queue behind the request given up on, time out in turn, and its latency would count the
        wait. Any answer, a refusal or a 404 too, says the slot is free."""
        import openai

        try:
            most_s = self._until_free_most_s()
            await asyncio.wait_for(self._openai().with_options(timeout=most_s).models.list(), most_s)
        except (openai.APIError, asyncio.TimeoutError, ValueError):  # ValueError: a list that is not JSON
            pass

    def _may_fail_on_tool_choice(self, fault: Fault, model: str, tools: list[dict[str, Any]]) -> bool:
        """A server error that names nothing, on a request that carried tool_choice."""
        return bool(tools) and fault.unexplained and self.traits(model).tool_choice is None

    async def _attempt(self, role: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                       response_schema: dict[str, Any] | None) -> Completion:
        request = self._request(role, model, messages, tools, response_schema)
        raw = await self._openai().chat.completions.with_raw_response.create(**request)
        return read_completion(raw.content, raw.headers.get("content-type", ""))

    def _response_form(self, model: str) -> ResponseForm:
        return self.traits(model).response_format or RESPONSE_FORMS[0]

    def _request(self, role: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 response_schema: dict[str, Any] | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
            if self.traits(model).tool_choice is not False:
                request["tool_choice"] = "required"
        form = self._response_form(model)
        # Every request carries a limit now, so a server that refuses the old name is given the new one.
        limit_name = "max_completion_tokens" if self.traits(model).max_tokens is False else "max_tokens"
        request[limit_name] = answer_limit(self.config, role, structured=response_schema is not None)
        if response_schema is not None and form == "json_schema":
            request["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": "answer", "schema": response_schema}}
        elif response_schema is not None and form == "json_object":
            request["response_format"] = {"type": "json_object", "schema": response_schema}
        return request

    def _reply(
        self, role: str, model: str, step: int | None, completion: Completion, started: float, attempt: int,
        tags: dict[str, object],
    ) -> ChatReply:
        latency_ms = int((time.perf_counter() - started) * 1000)
        reply = ChatReply(
            content=completion.content, tokens_in=completion.tokens_in, tokens_out=completion.tokens_out,
            truncated=completion.finish_reason == "length",
            tool_calls=list(completion.tool_calls),
        )
        answered_by = completion.model or model
        cost = self.prices.cost(answered_by, reply.tokens_in, reply.tokens_out)
        extra = {"cost_usd": round(cost, 6)} if cost is not None else {}
        call = self.emitter.emit(
            EventType.LLM_CALL, ROLE_ACTORS[role], step,
            role=role, model=answered_by, latency_ms=latency_ms, tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out, attempt=attempt, **extra, **tags,
        )
        self.usage.add(call)
        self._longest_answer = max(self._longest_answer, reply.tokens_out or 0)
        return reply

    async def _within_limits(self, messages: list[dict[str, Any]], step: int | None) -> None:
        # The answer is paid for too: reckoned as the longest so far, so the run pauses before it
        # would go over, not after.
        reason = self.limits.exceeded(self.usage, estimate_tokens(messages) + self._longest_answer)
        if reason is None:
            return
        if not await self.ask_budget(reason, step):
            raise BudgetStop(f"stopped at the budget: {reason}")
        self.limits = self.limits.raised(self.usage)

    def report_fault(
        self, role: str, step: int | None, fault: Fault, attempt: int = 1,
        wait_s: float | None = None, note: str = "",
    ) -> None:
        """One LLM_ERROR event for one failed attempt, saying what happens next."""
        if note:
            then = f"; {note}"
        elif wait_s is not None:
            then = f"; trying again in {wait_s:.1f}s"
        else:
            then = ""
        self.emitter.emit(
            EventType.LLM_ERROR, ROLE_ACTORS[role], step, role=role, model=self.config.model_for(role),
            message=self._scrub(fault.message) + then, attempt=attempt, status=fault.status,
            retry_in_s=None if wait_s is None else round(wait_s, 2),
        )

    def _error(self, fault: Fault, attempt: int) -> ModelError:
        message = self._scrub(fault.message)
        if attempt > 1:
            message += f" (gave up after {attempt} attempts)"
        return ModelError(message)

    def _scrub(self, message: str) -> str:
        # An endpoint may echo the key back in its error text; events must never carry it.
        key = self.config.api_key.get_secret_value()
        return message.replace(key, "<api key>") if key else message

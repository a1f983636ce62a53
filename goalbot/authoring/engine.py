"""DSPy's model engine over goalbot's own model client: every call of a tuning round goes through
the `openai` client as a run's calls do — an LLM_CALL event in the tune's stored session, its
tokens counted, its faults retried, its key kept out of every message — and stops at the budget."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, Coroutine, Iterator, TypeVar

from dspy.lm15 import Message, Request, Response, TextPart, Usage

from goalbot.llm.client import ModelClient, ModelError

T = TypeVar("T")


class BudgetSpent(ModelError):
    """The tune's --budget of model calls is used up."""


class Unusable(ModelError):
    """The model answers, but not in the form DSPy asks for: more calls would only spend."""


UNUSABLE_IN_A_ROW = 3  # answers not in DSPy's form, one after another, before the tune stops asking


def in_dspy_form(text: str) -> bool:
    """DSPy reads an answer by its field markers (`[[ ## patch ## ]]`) or as a JSON object."""
    body = text.strip().removeprefix("```json").removeprefix("```").strip()
    return "[[ ## " in text or body.startswith("{")


class Meter:
    """The calls and tokens a tune spent, across the task and the reflection models."""

    def __init__(self, budget: int) -> None:
        self.stopped: str | None = None  # why no more calls are made, once a tune knows they are wasted
        self.unusable = 0  # answers not in DSPy's form, one after another
        self.budget = budget
        self.cap = budget  # lowered while GEPA runs, so the held-out tasks can still be scored after it
        self.calls = 0
        self.tokens = 0
        self._lock = threading.Lock()

    @property
    def left(self) -> int:
        return max(0, self.budget - self.calls)

    def answered(self, text: str) -> None:
        """A model that never answers in DSPy's form would spend the whole budget for nothing."""
        self.unusable = 0 if in_dspy_form(text) else self.unusable + 1
        if self.unusable >= UNUSABLE_IN_A_ROW and self.stopped is None:
            self.stopped = (f"the model's last {self.unusable} answers were not in the form DSPy asks for (fields "
                            "marked [[ ## name ## ]], or a JSON object); tuning needs a model that follows it, so "
                            "no more calls are made")

    def take(self) -> None:
        with self._lock:
            if self.stopped is not None:
                raise Unusable(self.stopped)
            if self.calls >= min(self.cap, self.budget):
                raise BudgetSpent(f"the budget of {self.budget} model calls is spent")
            self.calls += 1

    @contextlib.contextmanager
    def capped(self, calls: int) -> Iterator[None]:
        """At most `calls` more until the block ends."""
        self.cap = self.calls + calls
        try:
            yield
        finally:
            self.cap = self.budget


class Loop:
    """One event loop in a thread of its own: DSPy calls from its threads, the client is async."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tune-model", daemon=True)
        self._thread.start()

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


class GoalbotEngine:
    """`complete(Request) -> Response`, DSPy 3.4's engine contract, for one role of the tune."""

    def __init__(self, client: ModelClient, role: str, loop: Loop, meter: Meter) -> None:
        self.client, self.role, self.loop, self.meter = client, role, loop, meter
        self.last_tokens = 0  # of the latest call: the harness's token cost (GEPA runs one thread)
        self.failed: ModelError | None = None  # the latest call's, which DSPy wraps in errors of its own

    def complete(self, request: Request) -> Response:
        messages: list[dict[str, Any]] = []
        if request.system is not None:
            system = request.system if isinstance(request.system, str) else "".join(
                getattr(p, "text", "") for p in request.system)
            messages.append({"role": "system", "content": system})
        messages += [{"role": m.role, "content": m.text or ""} for m in request.messages]
        self.last_tokens, self.failed = 0, None
        try:
            self.meter.take()
            reply = self.loop.run(self.client.chat(self.role, messages, [], None))
        except ModelError as exc:
            self.failed = exc
            raise
        self.last_tokens = reply.tokens_in + reply.tokens_out
        self.meter.tokens += self.last_tokens
        self.meter.answered(reply.content or "")
        return Response(id=None, model=self.client.config.model_for(self.role),
                        message=Message.assistant([TextPart(reply.content)]),
                        finish_reason="length" if reply.truncated else "stop",
                        usage=Usage(input_tokens=reply.tokens_in, output_tokens=reply.tokens_out,
                                    total_tokens=reply.tokens_in + reply.tokens_out))

    def stream(self, request: Request) -> Any:
        raise NotImplementedError("goalbot tune does not stream")

    def close(self) -> None:
        pass

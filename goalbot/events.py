"""The event vocabulary and the bus every layer talks through.

An `Event` is one state change of a session. The agents publish events; the store, the dashboard
and the terminal printer subscribe. A session's events, in order, are enough to redraw what the
dashboard showed, so everything a viewer needs travels in `data`.
"""

from __future__ import annotations

import builtins
import itertools
import math
import re
import secrets
import threading
from datetime import datetime, timezone
from enum import StrEnum
from functools import cached_property
from typing import Any, Callable, TypeVar

from blinker import Signal
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from goalbot.payloads import (
    ActionData, ApprovalData, ChosenData, EventData, ExtractedData, GoalStatusData, LlmCallData, LlmErrorData,
    ObservationData, PauseData, PlanData, PlanDecisionData, PolicyData, QuestionData, ReplyData, ResumeData,
    StepData, TaskEndData, TaskStartData, ValidateData,
)


D = TypeVar("D", bound=EventData)


class EventType(StrEnum):
    TASK_START = "TASK_START"
    TASK_OK = "TASK_OK"
    TASK_FAIL = "TASK_FAIL"
    TASK_CANCEL = "TASK_CANCEL"
    TASK_PAUSE = "TASK_PAUSE"
    TASK_RESUME = "TASK_RESUME"
    PLAN_PROPOSED = "PLAN_PROPOSED"
    PLAN_APPROVED = "PLAN_APPROVED"
    PLAN_REJECTED = "PLAN_REJECTED"
    STEP_START = "STEP_START"
    STEP_OK = "STEP_OK"
    STEP_FAIL = "STEP_FAIL"
    ACT_START = "ACT_START"
    ACT_OK = "ACT_OK"
    ACT_FAIL = "ACT_FAIL"
    VALIDATE_OK = "VALIDATE_OK"
    VALIDATE_FAIL = "VALIDATE_FAIL"
    ASK_USER = "ASK_USER"
    USER_REPLY = "USER_REPLY"
    APPROVAL_REQUEST = "APPROVAL_REQUEST"
    APPROVAL_GRANTED = "APPROVAL_GRANTED"
    APPROVAL_DENIED = "APPROVAL_DENIED"
    OBSERVATION = "OBSERVATION"
    GOAL_STATUS = "GOAL_STATUS"
    LLM_CALL = "LLM_CALL"
    LLM_ERROR = "LLM_ERROR"
    POLICY = "POLICY"
    EXTRACTED = "EXTRACTED"
    CHOSEN = "CHOSEN"


class Actor(StrEnum):
    SYSTEM = "SYSTEM"
    USER = "USER"
    PLANNER = "PLANNER"
    NAVIGATOR = "NAVIGATOR"
    VALIDATOR = "VALIDATOR"


class RunStatus(StrEnum):
    """How a run stands: the one set of words of the store, the dashboard, the report and the CLI."""

    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


ENDINGS: dict[EventType, RunStatus] = {
    EventType.TASK_OK: RunStatus.OK, EventType.TASK_FAIL: RunStatus.FAILED, EventType.TASK_CANCEL: RunStatus.CANCELLED,
}
TERMINAL_TYPES = frozenset(ENDINGS)


DATA_MODELS: dict[EventType, type[EventData]] = {
    EventType.TASK_START: TaskStartData,
    EventType.TASK_OK: TaskEndData,
    EventType.TASK_FAIL: TaskEndData,
    EventType.TASK_CANCEL: TaskEndData,
    EventType.PLAN_PROPOSED: PlanData,
    EventType.TASK_PAUSE: PauseData,
    EventType.TASK_RESUME: ResumeData,
    EventType.PLAN_APPROVED: PlanDecisionData,
    EventType.PLAN_REJECTED: PlanDecisionData,
    EventType.STEP_START: StepData,
    EventType.STEP_OK: StepData,
    EventType.STEP_FAIL: StepData,
    EventType.ACT_START: ActionData,
    EventType.ACT_OK: ActionData,
    EventType.ACT_FAIL: ActionData,
    EventType.VALIDATE_OK: ValidateData,
    EventType.VALIDATE_FAIL: ValidateData,
    EventType.OBSERVATION: ObservationData,
    EventType.GOAL_STATUS: GoalStatusData,
    EventType.LLM_CALL: LlmCallData,
    EventType.LLM_ERROR: LlmErrorData,
    EventType.ASK_USER: QuestionData,
    EventType.USER_REPLY: ReplyData,
    EventType.APPROVAL_REQUEST: ApprovalData,
    EventType.APPROVAL_GRANTED: ApprovalData,
    EventType.APPROVAL_DENIED: ApprovalData,
    EventType.POLICY: PolicyData,
    EventType.EXTRACTED: ExtractedData,
    EventType.CHOSEN: ChosenData,
}


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_INT64 = 2**63 - 1


def clean_text(text: str) -> str:
    """Text that can be written as UTF-8: lone surrogates (from undecodable bytes in arguments,
    or a model's broken escapes) become U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def json_safe(value: Any) -> Any:
    """`value` as the store, the log and every reader can take it: UTF-8 text, integers within
    64 bits, finite numbers. Whatever a model, a page or a flag put in an event."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return max(-_INT64, min(_INT64, value))
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {clean_text(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return clean_text(str(value))


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def new_session_id() -> str:
    """Sortable by start time and short enough to type: 20261121-134502-3fa9."""
    return f"{utc_now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class Event(BaseModel):
    """One state change of a session; `seq` is strictly increasing within the session."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    seq: int
    ts: datetime = Field(default_factory=utc_now)
    type: EventType
    actor: Actor
    step: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("data", mode="before")
    @classmethod
    def _safe_data(cls, data: Any) -> Any:
        return json_safe(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _check_data(self) -> Event:
        _ = self.payload  # `data` must fit its type's model
        return self

    @cached_property
    def payload(self) -> EventData:
        """`data` as its type's model (`PlanData` for PLAN_PROPOSED, …). Validated once, when the
        event is made; every reader after that gets the same object. Read it narrowed: with
        `data_of`, or `match (event.type, event.payload)` with the model as a class pattern."""
        return DATA_MODELS.get(self.type, EventData).model_validate(self.data)

    def data_of(self, model: builtins.type[D]) -> D:  # `type` here is the event's field
        """The payload as `model`, for a reader that knows the event's type; a wrong guess is a
        TypeError that names both, never a field read off the wrong model."""
        payload = self.payload
        if not isinstance(payload, model):
            raise TypeError(f"a {self.type} event carries {type(payload).__name__}, not {model.__name__}")
        return payload


class Artifact(BaseModel):
    """A binary produced by a session (a screenshot, a download), referenced from events by `id`."""

    model_config = ConfigDict(frozen=True)

    id: str
    session_id: str
    kind: str
    mime: str
    content: bytes
    name: str | None = None
    ts: datetime = Field(default_factory=utc_now)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, name: str | None) -> str | None:
        return clean_text(name) if name is not None else None


class Bus:
    """Publishes events and artifacts to whoever subscribed, through blinker signals.

    Subscribers run in the publisher's thread and must return quickly: the agent never waits
    on a viewer. Slow work (disk, rendering) belongs on the subscriber's own queue.
    """

    def __init__(self) -> None:
        self.events = Signal("goalbot.events")
        self.artifacts = Signal("goalbot.artifacts")

    def publish(self, event: Event) -> None:
        self.events.send(self, event=event)

    def publish_artifact(self, artifact: Artifact) -> None:
        self.artifacts.send(self, artifact=artifact)

    def subscribe(self, on_event: Callable[[Event], None]) -> Callable[..., None]:
        def receiver(_sender: object, event: Event) -> None:
            on_event(event)

        self.events.connect(receiver, weak=False)
        return receiver

    def subscribe_artifacts(self, on_artifact: Callable[[Artifact], None]) -> Callable[..., None]:
        def receiver(_sender: object, artifact: Artifact) -> None:
            on_artifact(artifact)

        self.artifacts.connect(receiver, weak=False)
        return receiver


def _unchanged(value: Any) -> Any:
    return value


class Emitter:
    """Stamps events of one session with its id and the next sequence number."""

    def __init__(
        self, bus: Bus, session_id: str, start_seq: int = 0, start_artifact: int = 0,
        scrub: Callable[[Any], Any] = _unchanged,
    ) -> None:
        self.bus = bus
        self.session_id = session_id
        self.scrub = scrub  # every event's data passes through it: secrets never leave the process
        self._seq = itertools.count(start_seq + 1)
        self._artifact_seq = itertools.count(start_artifact + 1)
        self.latest: dict[str, str] = {}  # the newest artifact of each kind, by id
        self._lock = threading.Lock()

    def emit(
        self, type: EventType, actor: Actor, step: int | None = None, **data: Any
    ) -> Event:
        with self._lock:
            event = Event(
                session_id=self.session_id,
                seq=next(self._seq),
                type=type,
                actor=actor,
                step=step,
                data=self.scrub(data),
            )
        self.bus.publish(event)
        return event

    def artifact(self, kind: str, mime: str, content: bytes, name: str | None = None) -> str:
        artifact_id = f"{self.session_id}-{kind}-{next(self._artifact_seq)}"
        self.latest[kind] = artifact_id
        self.bus.publish_artifact(
            Artifact(id=artifact_id, session_id=self.session_id, kind=kind, mime=mime,
                     content=content, name=name)
        )
        return artifact_id

"""What each kind of event carries: one pydantic model per event type's `data`.

Writers pass keyword arguments to `Emitter.emit`; readers take `Event.payload` and read fields by
name. A field an older store lacks has a default that means what that store meant.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EventData(BaseModel):
    model_config = ConfigDict(extra="allow")


class TaskStartData(EventData):
    goal: str
    url: str | None = None
    model: str
    base_url: str
    operator: str = "browser"
    max_steps: int
    models: dict[str, str] = Field(default_factory=dict, description="The model of each role.")
    dialects: dict[str, str] = Field(default_factory=dict, description="The dialect asked of each role.")
    options: dict[str, Any] = Field(default_factory=dict, description="The run's options, to resume it as it was.")


class TaskEndData(EventData):
    reason: str
    answer: str = ""


class PlanData(EventData):
    steps: list[str]
    reasoning: str = ""
    revision: int = 1
    done: bool = False
    observation: str = ""
    question: str = ""
    # Stores from before the flag asked for approval of every plan.
    asks_approval: bool = Field(True, description="Whether the person will be asked to approve it.")


class PauseData(EventData):
    reason: str = ""
    by: str = ""


class ResumeData(EventData):
    by: str = "user"
    resumed: bool = Field(False, description="`goalbot resume` took the session up again.")
    after_step: int = 0
    remaining: list[str] = Field(default_factory=list)


class PlanDecisionData(EventData):
    steps: list[str] = Field(default_factory=list)
    feedback: str = ""
    by: str = "user"
    edited: bool = Field(False, description="The person changed the steps before approving them.")


class StepData(EventData):
    index: int
    description: str
    reason: str = ""


class ActionData(EventData):
    action: dict[str, Any]
    message: str = ""
    error: str | None = None
    files: list[dict[str, Any]] = Field(default_factory=list, description="Downloads it caused.")
    target: dict[str, Any] | None = Field(None, description="What identified the element acted on: its role "
                                                     "and name, and the evidence a recipe finds it by.")
    resolved_by: str | None = Field(None, description="In a rerun: the rung of the ladder that found the "
                                                      "element (cached, strict, refind, memory).")
    gone: bool = Field(False, description="The element acted on left the page (removed or hidden) while "
                                          "the page stayed: what a recipe expects the action to do again.")


class ValidateData(EventData):
    is_valid: bool
    reason: str
    answer: str = ""
    confidence: float = 0.0
    final: bool = False


class ObservationData(EventData):
    url: str
    title: str
    screenshot: str | None = None
    elements: int = 0
    marks: list[tuple[int, int, int, int, int]] = Field(
        default_factory=list, description="Set-of-Mark boxes: index, x, y, width, height (CSS px).")
    viewport_width: int = 0
    announced: list[str] = Field(default_factory=list, description="What the page announced in view (status "
                                 "and alert regions), cut short, with every secret scrubbed: a recipe "
                                 "expects an action's announcement again.")


class GoalStatusData(EventData):
    achieved: bool = False
    progress_percent: int = 0
    confidence: float = 0.0
    description: str = ""


class LlmCallData(EventData):
    role: str
    model: str
    latency_ms: int
    tokens_in: int = 0
    tokens_out: int = 0
    attempt: int = Field(1, description="1 when the first try answered.")
    cost_usd: float | None = Field(None, description="Absent when no price is known for the model.")
    dialect: str = Field("tools", description="How the answer was asked for: tools, json or uitars.")
    shrink: int = Field(0, description="How far the prompt was cut to fit the model's context.")


class LlmErrorData(EventData):
    role: str
    model: str
    message: str
    attempt: int = 1
    status: int | None = Field(None, description="The HTTP status, when the endpoint sent one.")
    retry_in_s: float | None = Field(None, description="None: this attempt was the last.")


class QuestionData(EventData):
    question: str
    secret: bool = Field(False, description="The answer is hidden as it is typed, and never stored.")


class ReplyData(EventData):
    answer: str = Field(description="A secret answer is stored as its reference, <secret:NAME>.")
    declined: bool = False
    by: str = "user"


class ApprovalData(EventData):
    kind: str = Field(description="What needs the person: budget, risky action, …")
    what: str
    where: str = ""
    by: str = ""
    risky: bool = Field(False, description="A GO / NOT GO question about an action.")
    screenshot: str | None = Field(None, description="The screen it would happen on (an artifact id).")


class PolicyData(EventData):
    policy: str = Field(description="repeat_click, min_interval, clicks_per_minute, low_confidence, "
                                    "no_progress, max_failures, max_steps, scheme")
    message: str

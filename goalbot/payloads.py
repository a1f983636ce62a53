"""What each kind of event carries: one pydantic model per event type's `data`.

Writers pass keyword arguments to `Emitter.emit`; readers take `Event.payload` and read fields by
name. A field an older store lacks has a default that means what that store meant.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class PolicyName(StrEnum):
    """The safety policies and gates a POLICY event names (seed 000 §4, seed 002)."""

    REPEAT_CLICK = "repeat_click"
    MIN_INTERVAL = "min_interval"
    CLICKS_PER_MINUTE = "clicks_per_minute"
    LOW_CONFIDENCE = "low_confidence"
    NO_PROGRESS = "no_progress"
    MAX_FAILURES = "max_failures"
    MAX_STEPS = "max_steps"
    SCHEME = "scheme"
    HELD_WRITES = "held_writes"
    RECIPE_PATCH = "recipe_patch"
    RECIPE_OPTIONAL = "recipe_optional"  # an optional action left out: what it dismissed did not come
    RECIPE_STATE = "recipe_state"  # a toggle left as it was: it already held the state the recipe sets
    RECIPE_BRANCH = "recipe_branch"  # a step done another way the recipe keeps: its condition held
    RECIPE_BLOCK = "recipe_block"  # a step that is another recipe (a sign-in, a search) ran it
    RECIPE_LOGIN = "recipe_login"  # the site asked to sign in again: its sign-in recipe ran
    RECIPE_LOOP = "recipe_loop"  # a loop's list: how many records, each a pass
    # a recipe the typed goal found: the matcher's binding, or why the goal is planned instead
    RECIPE_FOUND = "recipe_found"


PLANNED_INSTEAD = "the goal is planned instead, from this page"  # how a RECIPE_FOUND that hands over ends


class Rung(StrEnum):
    """How a rerun found an element: the ladder's rungs, cheapest first, then who else helped."""

    CACHED = "cached"
    ROW = "row"  # a loop's pass: in its record's row, by the recorded role and name
    STRICT = "strict"
    MEMORY = "memory"
    REFIND = "refind"
    PATCH = "patch"  # the model's patch named it
    PERSON = "person"  # the person put the page right at a checkpoint
    DIRECT = "direct"  # the action has no element (a key, a navigation)

    @property
    def as_recorded(self) -> bool:
        """Found by what the recipe recorded, not found again."""
        return self in AS_RECORDED


AS_RECORDED = frozenset({Rung.CACHED, Rung.ROW, Rung.STRICT, Rung.DIRECT})


class Command(StrEnum):
    """The words a viewer sends a running session: from the dashboard here, or through the store
    from `goalbot attach` in another process."""

    APPROVE = "approve"  # steps: the plan as the person left it
    REJECT = "reject"  # feedback
    GRANT = "grant"
    DENY = "deny"
    ANSWER = "answer"  # text
    DECLINE = "decline"
    PAUSE = "pause"
    RESUME = "resume"
    STOP = "stop"


class Phase(StrEnum):
    """Where a session stands as a viewer shows it: the store's `RunStatus` words while it runs
    and once it ended, and the moments in between that only a viewer names."""

    STARTING = "starting"
    RUNNING = "running"
    AWAITING_APPROVAL = "awaiting approval"
    REPLANNING = "re-planning"
    PAUSED = "paused"
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


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
    auto_approve: bool = Field(False, description="--yes: its plans were approved without asking; a resume keeps it.")


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
    policies: dict[str, Any] = Field(default_factory=dict, description="Choice policies the planner drafted "
                                     "from the goal's constraints, by name, for the person to see and edit.")
    long_steps: list[int] = Field(default_factory=list, description="Numbers (from 1) of the steps the planner "
                                  "said take many actions: they get twice the turns, after a resume too.")


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
    policies: dict[str, Any] = Field(default_factory=dict, description="The choice policies approved with it.")


class StepData(EventData):
    index: int
    description: str
    reason: str = ""


class ShownAction(BaseModel):
    """An action as events show it and recipes keep it: its tool name and its arguments as the
    navigator wrote them (text typed into a password field shows as •••; a recipe's may hold
    {{variables}} and <secret:NAME> references). Empty when no usable action came."""

    model_config = ConfigDict(extra="allow")

    name: str = ""

    def args(self) -> dict[str, Any]:
        """The arguments, without the name."""
        return dict(self.__pydantic_extra__ or {})

    def arg(self, key: str, default: Any = None) -> Any:
        return (self.__pydantic_extra__ or {}).get(key, default)

    def without(self, *keys: str) -> ShownAction:
        return ShownAction(name=self.name, **{k: v for k, v in self.args().items() if k not in keys})


class ActionData(EventData):
    action: ShownAction
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
    said: str | None = Field(None, description="What the model answered when its answer was unusable: its "
                                               "text and tool calls, the first 2,000 characters, scrubbed.")


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


class ExtractedData(EventData):
    key: str = Field(description='Where the data is kept: "result" for the run\'s final answer.')
    data: Any = None
    valid: bool
    errors: list[str] = Field(default_factory=list, description="Every way the data fails its schema.")
    url: str = Field("", description="The page it was read on.")
    scope: str = Field("", description="What part of the page was read; empty: all of it.")
    read_by: Literal["model", "places", "network", "document", "ocr"] = Field(
        "model", description="The extractor; the places a recipe recorded on the page (no model); the "
                             "page's own JSON, where a recipe recorded the data in it (no model); the lines "
                             "of a downloaded PDF a recipe recorded (no model); or the lines OCR read in the "
                             "page's pictures, where a recipe recorded them (no model).")
    sections: int = Field(1, description="How many parts of a big page the extractor read, one call each.")
    place: dict[str, Any] | None = Field(None, description="Where the data is written on the page "
                                         "(structure, not coordinates); None when it could not be told.")
    network: dict[str, Any] | None = Field(None, description="Where the data is in a JSON response the page "
                                           "fetched (its address and a path per field); None when it is in none.")


class ChoiceRow(BaseModel):
    candidate: Any = None
    dropped_by: str | None = Field(None, description="Why it was dropped: the hard rule it failed, said as what holds of it (`price > 55`).")
    score: float | None = None


class ChosenData(EventData):
    """A choice policy applied to extracted candidates: the table says why the one was taken."""

    model_config = ConfigDict(extra="allow", validate_by_name=True, serialize_by_alias=True)

    policy: str
    rules: str = Field("", description="The policy in words.")
    from_: str = Field("", alias="from", description="The key (or key.path) of the candidates.")
    chosen: Any = None
    position: int | None = Field(None, description="The chosen candidate's place in the list, from 0.")
    table: list[ChoiceRow] = Field(default_factory=list)
    tie_break: str | None = None


class PolicyData(EventData):
    policy: str = Field(description="One of PolicyName's values (a store may hold others: kept as they are).")
    message: str

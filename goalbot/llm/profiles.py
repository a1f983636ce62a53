"""Authoring profiles (seed 002 §5.6): what `goalbot tune` found for the roles that author —
their instructions and worked examples, how well they scored on held-out tasks, what they were
tuned on — kept as `authoring-profile/vN`. A run uses the pinned one, never simply the latest."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from goalbot.llm.authored import AuthoredPrompts

Program = Literal["workflow", "policy", "patch"]
PROGRAMS: tuple[Program, ...] = ("workflow", "policy", "patch")
# Which prompt part each program writes (seed 002's names: IntentToWorkflow, IntentToPolicy, PatchPlanner).
PART_OF: dict[Program, str] = {"workflow": "planner", "policy": "planner-policies", "patch": "patcher"}
PROGRAM_NAMES: dict[Program, str] = {"workflow": "IntentToWorkflow", "policy": "IntentToPolicy",
                                     "patch": "PatchPlanner"}


class Weights(BaseModel):
    """score = dry_run·w + schema·w + determinism·w − cost·w (seed 002 §5.6's example by default)."""

    dry_run: float = Field(0.45, ge=0)
    schema_: float = Field(0.25, ge=0, alias="schema")
    determinism: float = Field(0.20, ge=0)
    cost: float = Field(0.10, ge=0)

    model_config = {"populate_by_name": True, "serialize_by_alias": True}

    def score(self, dry_run: float, schema: float, determinism: float, cost: float) -> float:
        return self.dry_run * dry_run + self.schema_ * schema + self.determinism * determinism - self.cost * cost


class Metrics(BaseModel):
    """Means over the tasks a program was scored on (each metric from 0 to 1)."""

    model_config = {"populate_by_name": True, "serialize_by_alias": True}

    dry_run: float = 0.0
    schema_: float = Field(0.0, alias="schema")
    determinism: float = 0.0
    cost: float = 0.0
    score: float = 0.0
    tasks: int = 0


class ProgramProfile(BaseModel):
    instructions: str
    examples: list[str] = Field(default_factory=list, description="Worked examples, as the runtime shows them.")
    before: Metrics = Field(default_factory=Metrics, description="The instructions it started from, held out.")
    after: Metrics = Field(default_factory=Metrics, description="These instructions, on the same held-out tasks.")
    train: list[str] = Field(default_factory=list, description="Task ids GEPA learned from.")
    heldout: list[str] = Field(default_factory=list, description="Task ids kept apart, scored only.")


class TunedOn(BaseModel):
    sessions: list[str] = Field(default_factory=list)
    spec_file: str | None = None
    tasks: dict[str, int] = Field(default_factory=dict, description="Tasks per program.")


class AuthoringProfile(BaseModel):
    version: int = 0
    created_at: str = ""
    model: str = Field(description="The task model the instructions were tuned for.")
    reflection_model: str = ""
    base_url: str = ""
    optimizer: str = "dspy.GEPA"
    programs: dict[Program, ProgramProfile] = Field(default_factory=dict)
    score: float = Field(0.0, description="Held-out score, over every program's tasks.")
    before: float = Field(0.0, description="The starting instructions' held-out score.")
    bar: float = 0.82
    weights: Weights = Field(default_factory=Weights)
    promoted: bool = Field(False, description="score ≥ bar: may be pinned without --force.")
    budget: int = 0
    calls: int = 0
    tokens: int = 0
    tune_session: str | None = Field(None, description="The stored session of `goalbot tune` (its model calls).")
    parent: int | None = Field(None, description="The profile whose instructions tuning started from.")
    data: TunedOn = Field(default_factory=TunedOn)

    @property
    def name(self) -> str:
        return f"authoring-profile/v{self.version}"

    def prompts(self) -> AuthoredPrompts:
        return AuthoredPrompts(
            profile=self.name,
            instructions={PART_OF[p]: program.instructions for p, program in self.programs.items()},
            examples={PART_OF[p]: program.examples for p, program in self.programs.items() if program.examples},
        )

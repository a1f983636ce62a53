"""What a run is asked to do and within which limits: the goal, where it starts, and every
option a person sets for it (`goalbot run`'s flags, once read)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from goalbot import defaults as D
from goalbot.agents.choosing import Policy
from goalbot.agents.policies import SafetyPolicy
from goalbot.llm.authored import AuthoredPrompts
from goalbot.llm.coordinates import Convention
from goalbot.llm.dialects import Dialect


class RunOptions(BaseModel):
    goal: str
    url: str | None = None
    max_steps: int = Field(D.MAX_STEPS, ge=1)
    max_failures: int = Field(D.MAX_FAILURES, ge=1)
    max_turns_per_step: int = 6
    max_actions_per_step: int = Field(D.MAX_ACTIONS_PER_STEP, ge=1, description="Actions run from one navigator answer.")
    planning_interval: int = Field(0, ge=0, description="Re-plan every N steps; 0: only on failure.")
    vision: bool = Field(False, description="Send screenshots to the model.")
    coords: Convention | None = Field(None, description="How the model writes coordinates.")
    dialects: dict[str, Dialect] = Field(default_factory=dict, description="Per role; auto if absent.")
    answer_retries: int = Field(2, ge=0, description="Corrections asked for per unusable answer.")
    allow_domains: list[str] = Field(default_factory=list, description="Globs; empty: anywhere.")
    allow_schemes: list[str] = Field(default_factory=list, description="Schemes beyond http(s) pages may use.")
    allow_risky: bool = Field(False, description="GO to risky actions without asking.")
    approval_timeout_s: float | None = Field(D.APPROVAL_TIMEOUT_S, description="No answer in time is NOT GO.")
    policy: SafetyPolicy = Field(default_factory=SafetyPolicy)
    output_schema: dict[str, Any] | None = Field(
        None, description="--output-schema: the run's answer is data read off the page and shaped by it.")
    schemas: dict[str, dict[str, Any]] = Field(default_factory=dict, description="--schema NAME=FILE: "
                                               "what `extract` may name.")
    choice_policies: dict[str, Policy] = Field(default_factory=dict, description="--policies FILE: what "
                                               "`choose` may name (a rerun: its recipe's).")
    variables: dict[str, str] = Field(default_factory=dict, description="--var: the values {{vars.NAME}} stands for.")
    authored: AuthoredPrompts | None = Field(None, description="The pinned authoring profile's prompts (or "
                                             "--authoring-profile's); goalbot's own when none.")
    pictures: Literal["every", "paced", "none"] = Field(
        "every", description="Every look with a screenshot (someone watches live), paced ones for the store's "
                             "replay, or none but those the model is shown (nobody watches).")

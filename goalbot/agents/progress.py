"""What a session has achieved so far: enough to report on it and to resume it after a crash."""

from __future__ import annotations

from pydantic import BaseModel, Field


class RunState(BaseModel):
    history: list[str] = Field(default_factory=list, description="One line per finished step.")
    saved_data: dict[str, str] = Field(default_factory=dict)
    steps_run: int = 0
    plan_revision: int = 0
    plan: list[str] = Field(default_factory=list, description="The steps the person approved last.")
    plan_done: int = Field(0, description="How many of those passed.")
    long_steps: list[str] = Field(default_factory=list, description="Steps the planner said take many actions.")
    clarifications: list[str] = Field(default_factory=list, description="What the person told the planner.")

    @property
    def remaining(self) -> list[str]:
        return self.plan[self.plan_done:]


class ResumePoint(BaseModel):
    """Where a cut-off session takes up again."""

    session_id: str
    state: RunState
    last_seq: int = Field(description="The session's last stored event: the next one follows it.")
    last_artifact: int
    start_url: str | None = Field(description="Secrets stay with the host the run first started on.")

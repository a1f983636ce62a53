"""A batch's jobs file: one job per line, a goal (`{"goal", "url"?, "vars"?}`) or a recipe rerun
(`{"recipe", "vars"?}`), read as hostile input and refused with the line that is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from goalbot.text.json_lines import JsonLinesError, read_json_lines

MAX_JOBS = 10_000
MAX_FILE_BYTES = 10_000_000
# Which jobs keep a Playwright trace: none, a job that does not end well, or every job.
TraceKept = Literal["off", "failed", "always"]


class JobsError(Exception):
    """The jobs file cannot be run; one line naming where."""


class Job(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: str | None = Field(None, min_length=1)
    url: str | None = None
    recipe: str | None = Field(None, min_length=1)
    vars: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_kind(self) -> Job:
        if (self.goal is None) == (self.recipe is None):
            raise ValueError('a job is {"goal": …} or {"recipe": …}, one of the two')
        return self

    def words(self) -> str:
        what = f"rerun {self.recipe}" if self.recipe else str(self.goal)
        given = " ".join(f"{name}={value}" for name, value in self.vars.items())
        return f"{what} {given}".strip()


def ended_line(batch_id: str, n: int, status: str, session_id: str | None, reason: str, **more: str) -> str:
    return json.dumps({"batch": batch_id, "job": n, "status": status, "session": session_id, "reason": reason,
                       **more}, ensure_ascii=False)


def read_jobs(path: Path) -> list[Job]:
    found: list[Job] = []
    try:
        for _, job in read_json_lines(path, Job, "a job", MAX_FILE_BYTES, lambda number: f"{path}:{number}"):
            found.append(job)
            if len(found) > MAX_JOBS:
                raise JobsError(f"{path} holds over {MAX_JOBS} jobs")
    except JsonLinesError as exc:
        raise JobsError(str(exc)) from exc
    if not found:
        raise JobsError(f"{path} holds no job")
    return found

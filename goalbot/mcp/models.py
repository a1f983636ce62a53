"""What the MCP tools answer: small pydantic models (structured content), summaries in words, and
bulky things — reports, screenshots — left in the store, named by the session id."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from goalbot.service.refusal import Code

HostRunStatus = Literal["starting", "running", "waiting_for_person", "ok", "failed", "cancelled", "interrupted"]


class Problem(BaseModel):
    """Why a call could not be done: a code a program can branch on, words for a person, what to do."""

    code: Code
    message: str
    hint: str = ""


class Waiting(BaseModel):
    """A question the run waits on; answered through MCP elicitation when the host offers it,
    else with `goalbot attach RUN_ID` or the dashboard."""

    kind: str
    what: str
    where: str = ""
    risky: bool = False


class RunStarted(BaseModel):
    run_id: str = Field(description="The session id: get_run, cancel_run, get_report and `goalbot attach` take it.")
    status: HostRunStatus
    result: Any = Field(None, description="With wait: the run's answer (data when it had an output schema).")
    reason: str = Field("", description="With wait: why the run ended as it did.")
    waiting: Waiting | None = Field(None, description="With wait, on a host that cannot ask its person: what "
                                    "the run waits for (answered with `goalbot attach RUN_ID`).")


class RunView(BaseModel):
    run_id: str
    goal: str
    status: HostRunStatus
    step: str = Field("", description="The step in progress, in words.")
    progress_percent: int = 0
    waiting: Waiting | None = None
    last_events: list[str] = Field(default_factory=list, description="The newest event lines, oldest first.")
    result: Any = None
    reason: str = ""
    model_calls: int = 0
    screenshot_uri: str = Field("", description="What the browser shows now, as a resource (JPEG).")


class RunLine(BaseModel):
    run_id: str
    goal: str
    status: str
    started_at: str
    recipe: str = ""


class RunList(BaseModel):
    runs: list[RunLine]


class RecipeLine(BaseModel):
    name: str
    version: int
    steps: int
    goal: str
    needs_vars: list[str] = Field(default_factory=list)
    needs_secrets: list[str] = Field(default_factory=list)


class RecipeList(BaseModel):
    recipes: list[RecipeLine]


class Report(BaseModel):
    run_id: str
    markdown: str
    cut: bool = Field(False, description="True when the report was longer than one answer may be.")
    uri: str = Field("", description="The whole report, as a resource.")


class Observed(BaseModel):
    url: str
    title: str
    page: str = Field(description="The page as goalbot's navigator sees it: numbered elements and text.")
    cut: bool = False

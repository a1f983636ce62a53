"""What the dashboard shows, derived from events alone — so a replay draws the same thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from goalbot.events import ENDINGS, Event, EventType as T
from goalbot.payloads import (
    ActionData, ApprovalData, GoalStatusData, ObservationData, PauseData, Phase, PlanData, PlanDecisionData,
    QuestionData, ReplyData, ResumeData, StepData, TaskEndData, TaskStartData, ValidateData,
)
from goalbot.tally import Tally

TREND = 24  # how many confidence readings the status bar draws
WIREFRAME = "wireframe:"  # a look without a picture, drawn from its boxes (screenshot_id's prefix)
UNSETTLED_WINDOW = 200


class StepState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    OK = "ok"
    FAILED = "failed"
    REPLANNED = "replanned"


@dataclass
class PlanStep:
    text: str
    state: StepState = StepState.PENDING
    found_by: dict[str, int] = field(default_factory=dict)  # a rerun: how its elements were found


@dataclass
class DashboardState:
    session_id: str = ""
    goal: str = ""
    url: str = ""
    model: str = ""
    status: Phase = Phase.STARTING
    reason: str = ""
    answer: str = ""
    plan: list[PlanStep] = field(default_factory=list)
    plan_revision: int = 0
    awaiting_approval: bool = False
    step: int = 0
    max_steps: int = 0
    progress: int = 0
    confidence: float = 0.0
    last_verdict: str = ""
    usage: Tally = field(default_factory=Tally)
    confidences: list[float] = field(default_factory=list)  # the trend, newest last
    paused: str = ""
    screenshot_id: str | None = None
    marks: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    viewport_width: int = 0
    page: str = ""
    proposed: list[str] = field(default_factory=list)  # the steps waiting for approval
    # The person's edits of the waiting plan, put off with Esc: not an event until approved, but
    # what the plan panel shows, so it never shows the steps they changed.
    draft: list[str] | None = None
    proposed_policies: dict[str, Any] = field(default_factory=dict)  # the choice policies drafted with them
    proposed_from: str = ""  # "from recipe cart v1, PRODUCT = …": the stored recipe the goal found
    consent: Event | None = None  # the open APPROVAL_REQUEST: GO / NOT GO, or the budget
    question: Event | None = None  # the open ASK_USER
    started_at: datetime | None = None  # TASK_START's time
    latest_at: datetime | None = None  # the newest event's time: how long a replay had waited by then

    @property
    def finished(self) -> bool:
        return self.status in set(ENDINGS.values())

    def apply(self, event: Event) -> None:
        self.latest_at = event.ts
        match event.type, event.payload:
            case T.TASK_START, TaskStartData() as p:
                self.started_at = event.ts
                self.session_id, self.goal, self.url = event.session_id, p.goal, p.url or ""
                self.model, self.max_steps, self.status = p.model, p.max_steps, Phase.RUNNING
            case T.PLAN_PROPOSED, PlanData() as p:
                self.draft = None
                for old in self.plan:
                    if old.state in (StepState.PENDING, StepState.RUNNING):
                        old.state = StepState.REPLANNED
                self.plan.extend(PlanStep(text) for text in p.steps)
                self.plan_revision = p.revision
                if p.asks_approval:
                    self.awaiting_approval, self.status = True, Phase.AWAITING_APPROVAL
                    self.proposed = list(p.steps)
                    self.proposed_policies = dict(p.policies)
                    self.proposed_from = p.reasoning if p.reasoning.startswith("from recipe ") else ""
            case T.PLAN_APPROVED, PlanDecisionData() as p:
                self.draft = None
                settled = [s for s in self.plan if s.state is not StepState.PENDING]
                pending = [s.text for s in self.plan if s.state is StepState.PENDING]
                if p.steps and pending != p.steps:  # the person edited the plan
                    self.plan = settled + [PlanStep(text) for text in p.steps]
                self.awaiting_approval, self.status = False, Phase.RUNNING
            case T.PLAN_REJECTED, PlanDecisionData() as p:
                self.draft = None
                self.awaiting_approval, self.status = False, Phase.REPLANNING
                for s in self.plan:
                    if s.state is StepState.PENDING:
                        s.state = StepState.REPLANNED
            case T.STEP_START, StepData() as p:
                self.step = event.step or self.step
                self._mark(p.description, StepState.RUNNING)
            case T.STEP_OK, StepData() as p:
                self._mark(p.description, StepState.OK)
            case T.STEP_FAIL, StepData() as p:
                self._mark(p.description, StepState.FAILED)
            case T.ACT_OK, ActionData() as p if p.resolved_by:
                running = next((s for s in reversed(self.plan[-UNSETTLED_WINDOW:]) if s.state is StepState.RUNNING), None)
                if running is not None:
                    running.found_by[p.resolved_by] = running.found_by.get(p.resolved_by, 0) + 1
            case T.VALIDATE_OK | T.VALIDATE_FAIL, ValidateData() as p:
                verdict = "valid" if p.is_valid else "NOT valid"
                self.last_verdict = f"{verdict}: {p.reason}"
            case T.GOAL_STATUS, GoalStatusData() as p:
                self.progress, self.confidence = p.progress_percent, p.confidence
                self.confidences = [*self.confidences[-(TREND - 1):], p.confidence]
            case T.APPROVAL_REQUEST, ApprovalData() as p:
                self.consent = event
            case T.APPROVAL_GRANTED | T.APPROVAL_DENIED, ApprovalData() as p:
                self.consent = None
            case T.ASK_USER, QuestionData() as p:
                self.question = event
            case T.USER_REPLY, ReplyData() as p:
                self.question = None
            case T.LLM_CALL | T.LLM_ERROR, _:
                self.usage.add(event)
            case T.TASK_PAUSE, PauseData() as p:
                self.paused, self.status = p.reason, Phase.PAUSED
            case T.TASK_RESUME, ResumeData() as p:
                self.paused, self.status = "", Phase.RUNNING
            case T.OBSERVATION, ObservationData() as p:
                if p.screenshot:
                    self.screenshot_id, self.viewport_width = p.screenshot, p.viewport_width
                    self.marks = list(p.marks)
                elif p.marks and (self.screenshot_id is None or self.screenshot_id.startswith(WIREFRAME)):
                    # A run nobody watched keeps no pictures: its looks are drawn as their boxes.
                    self.screenshot_id, self.viewport_width = f"{WIREFRAME}{event.seq}", p.viewport_width
                    self.marks = list(p.marks)
                self.page = f"{p.title} <{p.url}>"
            case T.TASK_OK | T.TASK_FAIL | T.TASK_CANCEL, TaskEndData() as p:
                self.status = Phase(ENDINGS[event.type])
                self.reason, self.answer = p.reason, p.answer
                self.awaiting_approval, self.consent, self.question = False, None, None

    def _mark(self, description: str, state: StepState) -> None:
        # The newest step with this text that is not settled yet is the one the event is about;
        # unsettled steps are always among the newest, so a long session costs no long scan.
        for step in reversed(self.plan[-UNSETTLED_WINDOW:]):
            if step.text == description and step.state in (StepState.PENDING, StepState.RUNNING):
                step.state = state
                return
        if state is StepState.RUNNING:
            self.plan.append(PlanStep(description, state))

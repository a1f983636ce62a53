"""What the dashboard shows, derived from events alone — so a replay draws the same thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from goalbot.events import ENDINGS, Event, EventType as T
from goalbot.tally import Tally

TREND = 24  # how many confidence readings the status bar draws
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


@dataclass
class DashboardState:
    session_id: str = ""
    goal: str = ""
    url: str = ""
    model: str = ""
    status: str = "starting"
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
    consent: dict[str, Any] | None = None  # an open GO / NOT GO or budget question
    question: dict[str, Any] | None = None  # an open question from the agent

    @property
    def finished(self) -> bool:
        return self.status in set(ENDINGS.values())

    def apply(self, event: Event) -> None:
        d = event.data
        match event.type:
            case T.TASK_START:
                self.session_id, self.goal, self.url = event.session_id, d["goal"], d.get("url") or ""
                self.model, self.max_steps, self.status = d["model"], d["max_steps"], "running"
            case T.PLAN_PROPOSED:
                for old in self.plan:
                    if old.state in (StepState.PENDING, StepState.RUNNING):
                        old.state = StepState.REPLANNED
                self.plan.extend(PlanStep(text) for text in d["steps"])
                self.plan_revision = d.get("revision", self.plan_revision + 1)
                # Older stores lack the flag: then every plan waited for approval.
                if d.get("asks_approval", True):
                    self.awaiting_approval, self.status = True, "awaiting approval"
                    self.proposed = list(d["steps"])
            case T.PLAN_APPROVED:
                settled = [s for s in self.plan if s.state is not StepState.PENDING]
                pending = [s.text for s in self.plan if s.state is StepState.PENDING]
                if d.get("steps") and pending != d["steps"]:  # the person edited the plan
                    self.plan = settled + [PlanStep(text) for text in d["steps"]]
                self.awaiting_approval, self.status = False, "running"
            case T.PLAN_REJECTED:
                self.awaiting_approval, self.status = False, "re-planning"
                for s in self.plan:
                    if s.state is StepState.PENDING:
                        s.state = StepState.REPLANNED
            case T.STEP_START:
                self.step = event.step or self.step
                self._mark(d["description"], StepState.RUNNING)
            case T.STEP_OK:
                self._mark(d["description"], StepState.OK)
            case T.STEP_FAIL:
                self._mark(d["description"], StepState.FAILED)
            case T.VALIDATE_OK | T.VALIDATE_FAIL:
                verdict = "valid" if d["is_valid"] else "NOT valid"
                self.last_verdict = f"{verdict}: {d['reason']}"
            case T.GOAL_STATUS:
                self.progress, self.confidence = d["progress_percent"], d["confidence"]
                self.confidences = [*self.confidences[-(TREND - 1):], d["confidence"]]
            case T.APPROVAL_REQUEST:
                self.consent = {**d, "seq": event.seq}
            case T.APPROVAL_GRANTED | T.APPROVAL_DENIED:
                self.consent = None
            case T.ASK_USER:
                self.question = {**d, "seq": event.seq}
            case T.USER_REPLY:
                self.question = None
            case T.LLM_CALL | T.LLM_ERROR:
                self.usage.add(event)
            case T.TASK_PAUSE:
                self.paused, self.status = d.get("reason", ""), "paused"
            case T.TASK_RESUME:
                self.paused, self.status = "", "running"
            case T.OBSERVATION:
                if d.get("screenshot"):
                    self.screenshot_id, self.viewport_width = d["screenshot"], d.get("viewport_width", 0)
                    self.marks = [tuple(m) for m in d.get("marks", [])]
                self.page = f"{d['title']} <{d['url']}>"
            case T.TASK_OK | T.TASK_FAIL | T.TASK_CANCEL:
                self.status = ENDINGS[event.type].value
                self.reason, self.answer = d.get("reason", ""), d.get("answer", "")
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

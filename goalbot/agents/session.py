"""The session loop: Planner → approval → Navigator → Validator, until the goal or a stop."""

from __future__ import annotations

import asyncio
import traceback
from enum import StrEnum

from pydantic import BaseModel, Field

from goalbot.agents.control import SessionControl
from goalbot.agents.navigator import Navigator
from goalbot.agents.observing import observe, picture_of
from goalbot.agents.planner import Planner
from goalbot.agents.person import Person
from goalbot.agents.secrets import Secrets
from goalbot.agents.validator import Validator
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.client import ROLES, BudgetStop, ModelClient, ModelError
from goalbot.llm.coordinates import Convention
from goalbot.llm.dialects import Dialect, DialectChoice
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.parsing import AnswerError
from goalbot.llm.tools import PlanAnswer, VerdictAnswer
from goalbot.operators.base import Observation, Operator, OperatorError


class RunOptions(BaseModel):
    goal: str
    url: str | None = None
    max_steps: int = 20
    max_failures: int = 5
    max_turns_per_step: int = 6
    vision: bool = Field(False, description="Send screenshots to the model.")
    coords: Convention | None = Field(None, description="How the model writes coordinates.")
    dialects: dict[str, Dialect] = Field(default_factory=dict, description="Per role; auto if absent.")
    answer_retries: int = Field(2, ge=0, description="Corrections asked for per unusable answer.")


class Status(StrEnum):
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"


class SessionResult(BaseModel):
    status: Status
    reason: str
    answer: str = ""
    detail: str = ""


class _Finish(Exception):
    def __init__(self, result: SessionResult) -> None:
        self.result = result


class Session:
    def __init__(
        self, options: RunOptions, operator: Operator, client: ModelClient,
        emitter: Emitter, control: SessionControl, secrets: Secrets | None = None,
    ) -> None:
        self.options = options
        self.operator = operator
        self.client = client
        self.emitter = emitter
        self.control = control
        self.saved_data: dict[str, str] = {}
        self.history: list[str] = []
        self.steps_run = 0
        self.failures = 0
        self.plan_revision = 0
        self.secrets = secrets or Secrets()
        # Nothing that leaves the process — events, prompts — may carry a secret's value.
        emitter.scrub = self.secrets.scrub
        client.redact = self.secrets.scrub
        person = Person(emitter, control, self.secrets)
        client.ask_budget = person.allow_more
        self.dialogue = Dialogue(client, DialectChoice(options.dialects), options.answer_retries)
        self.planner = Planner(self.dialogue)
        self.validator = Validator(self.dialogue)
        self.navigator = Navigator(
            self.dialogue, operator, emitter, self.saved_data, options.max_turns_per_step,
            vision=options.vision, coords=options.coords, secrets=self.secrets,
            ask_person=person.answer
        )

    async def run(self) -> SessionResult:
        self.control.bind()
        o = self.options
        self.emitter.emit(
            EventType.TASK_START, Actor.SYSTEM, None, goal=o.goal, url=o.url,
            model=self.client.config.model, base_url=self.client.config.base_url,
            operator=self.operator.name, max_steps=o.max_steps,
            models={role: self.client.config.model_for(role) for role in ROLES},
            dialects={role: self.dialogue.dialects.asked(role).value for role in ROLES},
        )
        try:
            result = await self._drive()
        except _Finish as finish:
            result = finish.result
        except asyncio.CancelledError:
            result = SessionResult(status=Status.CANCELLED, reason="stopped by the person")
        except BudgetStop as exc:
            result = SessionResult(status=Status.CANCELLED, reason=str(exc))
        except OperatorError as exc:
            result = SessionResult(status=Status.FAILED, reason=str(exc))
        except ModelError as exc:
            result = SessionResult(status=Status.FAILED, reason=str(exc))
        except Exception as exc:  # a bug must still end the session on record, not leave it running
            result = SessionResult(
                status=Status.FAILED, reason=f"unexpected error: {type(exc).__name__}: {exc}",
                # Kept in the store for a bug report, never printed over the dashboard.
                detail=traceback.format_exc(),
            )
        finally:
            await asyncio.shield(self.operator.close())
        # The answer is printed and stored: a secret the page or the model repeated stays hidden.
        result = SessionResult.model_validate(self.secrets.scrub(result.model_dump()))
        kind = {
            Status.OK: EventType.TASK_OK,
            Status.FAILED: EventType.TASK_FAIL,
            Status.CANCELLED: EventType.TASK_CANCEL,
        }[result.status]
        extra = {"detail": result.detail} if result.detail else {}
        self.emitter.emit(kind, Actor.SYSTEM, None, reason=result.reason, answer=result.answer, **extra)
        return result

    async def _drive(self) -> SessionResult:
        await self.operator.start(self.options.url)
        observation = await observe(self.operator, self.emitter, None)
        feedback: str | None = None
        while True:
            plan = await self._plan(observation, feedback)
            if plan.done or not plan.web_task:
                verdict, observation = await self._final_check(plan.final_answer)
                if verdict.is_valid:
                    return SessionResult(status=Status.OK, reason=verdict.reason, answer=verdict.answer)
                feedback = f"the goal is not reached yet: {verdict.reason}"
                self._count_failure(feedback)
                continue
            steps, rejection = await self._approved_steps(plan)
            if steps is None:
                feedback = rejection
                continue
            observation, feedback = await self._run_steps(steps, observation)
            if feedback is None:
                verdict, observation = await self._final_check("")
                if verdict.is_valid:
                    return SessionResult(status=Status.OK, reason=verdict.reason, answer=verdict.answer)
                feedback = f"every step passed but the goal is not reached: {verdict.reason}"
                self._count_failure(feedback)

    async def _plan(self, observation: Observation, feedback: str | None) -> PlanAnswer:
        try:
            plan = await self.planner.plan(
                self.options.goal, observation, self.history, feedback, self.steps_run or None,
                await picture_of(observation, self.options.vision),
            )
        except AnswerError as exc:
            raise _Finish(SessionResult(
                status=Status.FAILED, reason=f"the planner's answers could not be used: {exc}"
            )) from exc
        self.plan_revision += 1
        self.emitter.emit(
            EventType.PLAN_PROPOSED, Actor.PLANNER, self.steps_run or None,
            steps=plan.steps, reasoning=plan.reasoning, revision=self.plan_revision,
            done=plan.done, observation=plan.observation,
        )
        self.emitter.emit(
            EventType.GOAL_STATUS, Actor.PLANNER, self.steps_run or None, achieved=False,
            progress_percent=plan.progress_percent, confidence=plan.confidence,
            description=plan.observation,
        )
        return plan

    async def _approved_steps(self, plan: PlanAnswer) -> tuple[list[str] | None, str]:
        """The steps to run as the person approved them, or None and why they rejected the plan."""
        if not plan.steps:
            raise _Finish(SessionResult(
                status=Status.FAILED, reason="the planner proposed no steps and did not say done"
            ))
        decision = await self.control.decide()
        if not decision.approved:
            self.emitter.emit(
                EventType.PLAN_REJECTED, Actor.USER, None, steps=plan.steps,
                feedback=decision.feedback, by=decision.by,
            )
            return None, f"the person rejected the plan: {decision.feedback or 'no reason given'}"
        steps = decision.steps or plan.steps
        self.emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps, by=decision.by)
        return steps, ""

    async def _run_steps(
        self, steps: list[str], observation: Observation
    ) -> tuple[Observation, str | None]:
        """Runs the approved steps in order; returns the reason to re-plan, or None when all passed."""
        for position, description in enumerate(steps, 1):
            if self.steps_run >= self.options.max_steps:
                raise _Finish(SessionResult(
                    status=Status.FAILED, reason=f"reached --max-steps ({self.options.max_steps})"
                ))
            self.steps_run += 1
            step = self.steps_run
            self.emitter.emit(EventType.STEP_START, Actor.PLANNER, step, index=position,
                              description=description)
            report = await self.navigator.run_step(description, step, observation)
            observation = report.observation
            evidence = report.done + [f"navigator's summary: {report.summary}"]
            if report.success:
                verdict = await self._judge(description, False, evidence, observation, step)
            else:  # the navigator gave up: nothing for the validator to judge
                verdict = VerdictAnswer(is_valid=False, reason=report.summary, confidence=0.0)
            reason = verdict.reason
            done_share = int(100 * position / (len(steps) + 1))
            if verdict.is_valid:
                self.failures = 0
                self.history.append(f"step {step} '{description}': done ({reason})")
                self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, step, index=position,
                                  description=description, reason=reason)
                self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=False,
                                  progress_percent=done_share, confidence=verdict.confidence,
                                  description=reason)
                continue
            self.history.append(f"step {step} '{description}': FAILED ({reason})")
            self.emitter.emit(EventType.STEP_FAIL, Actor.VALIDATOR, step, index=position,
                              description=description, reason=reason)
            self._count_failure(reason)
            return observation, f"step '{description}' failed: {reason}"
        return observation, None

    async def _judge(
        self, target: str, final: bool, evidence: list[str], observation: Observation, step: int | None
    ) -> VerdictAnswer:
        try:
            verdict = await self.validator.judge(
                target, final, evidence, self.saved_data, observation, step,
                await picture_of(observation, self.options.vision),
            )
        except AnswerError as exc:
            verdict = VerdictAnswer(
                is_valid=False, reason=f"the validator's answer could not be used: {exc}", confidence=0.0
            )
        kind = EventType.VALIDATE_OK if verdict.is_valid else EventType.VALIDATE_FAIL
        self.emitter.emit(kind, Actor.VALIDATOR, step, is_valid=verdict.is_valid, reason=verdict.reason,
                          answer=verdict.answer, confidence=verdict.confidence, final=final)
        return verdict

    async def _final_check(self, planner_answer: str) -> tuple[VerdictAnswer, Observation]:
        """The Validator's word on the whole goal, against a fresh look at the page."""
        evidence = list(self.history)
        if planner_answer:
            evidence.append(f"planner's answer: {planner_answer}")
        step = self.steps_run or None
        observation = await observe(self.operator, self.emitter, step)
        verdict = await self._judge(self.options.goal, True, evidence, observation, step)
        if verdict.is_valid:
            self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=True,
                              progress_percent=100, confidence=verdict.confidence,
                              description=verdict.reason)
            verdict.answer = verdict.answer or planner_answer
        return verdict, observation

    def _count_failure(self, reason: str) -> None:
        self.failures += 1
        if self.failures >= self.options.max_failures:
            raise _Finish(SessionResult(
                status=Status.FAILED,
                reason=f"{self.failures} failures in a row (--max-failures); last: {reason}",
            ))

"""The session loop: Planner → approval → Navigator → Validator, until the goal or a stop."""

from __future__ import annotations

import asyncio
from enum import StrEnum

from pydantic import BaseModel

from goalbot.agents.control import SessionControl
from goalbot.agents.navigator import Navigator
from goalbot.agents.observing import observe
from goalbot.agents.planner import Planner
from goalbot.agents.validator import Validator
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.client import ModelClient, ModelError
from goalbot.llm.parsing import AnswerError
from goalbot.llm.tools import PlanAnswer
from goalbot.operators.base import Observation, Operator, OperatorError


class RunOptions(BaseModel):
    goal: str
    url: str | None = None
    max_steps: int = 20
    max_failures: int = 5
    max_turns_per_step: int = 6


class Status(StrEnum):
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"


class SessionResult(BaseModel):
    status: Status
    reason: str
    answer: str = ""


class _Finish(Exception):
    def __init__(self, result: SessionResult) -> None:
        self.result = result


class Session:
    def __init__(
        self, options: RunOptions, operator: Operator, client: ModelClient,
        emitter: Emitter, control: SessionControl,
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
        self._last_rejection = ""
        self._confidence = 0.0
        self._last_answer = ""
        self.planner = Planner(client)
        self.validator = Validator(client)
        self.navigator = Navigator(
            client, operator, emitter, self.saved_data, options.max_turns_per_step
        )

    async def run(self) -> SessionResult:
        self.control.bind()
        o = self.options
        self.emitter.emit(
            EventType.TASK_START, Actor.SYSTEM, None, goal=o.goal, url=o.url,
            model=self.client.config.model, base_url=self.client.config.base_url,
            operator=self.operator.name, max_steps=o.max_steps,
        )
        try:
            result = await self._drive()
        except _Finish as finish:
            result = finish.result
        except asyncio.CancelledError:
            result = SessionResult(status=Status.CANCELLED, reason="stopped by the person")
        except OperatorError as exc:
            result = SessionResult(status=Status.FAILED, reason=str(exc))
        except ModelError as exc:
            result = SessionResult(status=Status.FAILED, reason=str(exc))
        finally:
            await asyncio.shield(self.operator.close())
        kind = {
            Status.OK: EventType.TASK_OK,
            Status.FAILED: EventType.TASK_FAIL,
            Status.CANCELLED: EventType.TASK_CANCEL,
        }[result.status]
        self.emitter.emit(kind, Actor.SYSTEM, None, reason=result.reason, answer=result.answer)
        return result

    async def _drive(self) -> SessionResult:
        await self.operator.start(self.options.url)
        observation = await observe(self.operator, self.emitter, None)
        feedback: str | None = None
        while True:
            plan = await self._plan(observation, feedback)
            if plan.done or not plan.web_task:
                verdict_ok, reason, answer, observation = await self._final_check(plan.final_answer)
                if verdict_ok:
                    return SessionResult(status=Status.OK, reason=reason, answer=answer)
                feedback = f"the goal is not reached yet: {reason}"
                self._count_failure(feedback)
                continue
            steps = await self._approved_steps(plan)
            if steps is None:
                feedback = self._last_rejection
                continue
            observation, feedback = await self._run_steps(steps, observation)
            if feedback is None:
                verdict_ok, reason, answer, observation = await self._final_check("")
                if verdict_ok:
                    return SessionResult(status=Status.OK, reason=reason, answer=answer)
                feedback = f"every step passed but the goal is not reached: {reason}"
                self._count_failure(feedback)

    async def _plan(self, observation: Observation, feedback: str | None) -> PlanAnswer:
        try:
            plan = await self.planner.plan(
                self.options.goal, observation, self.history, feedback, self.steps_run or None
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

    async def _approved_steps(self, plan: PlanAnswer) -> list[str] | None:
        if not plan.steps:
            raise _Finish(SessionResult(
                status=Status.FAILED, reason="the planner proposed no steps and did not say done"
            ))
        decision = await self.control.decide()
        if not decision.approved:
            self._last_rejection = f"the person rejected the plan: {decision.feedback or 'no reason given'}"
            self.emitter.emit(
                EventType.PLAN_REJECTED, Actor.USER, None, steps=plan.steps,
                feedback=decision.feedback, by=decision.by,
            )
            return None
        steps = decision.steps or plan.steps
        self.emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps, by=decision.by)
        return steps

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
                ok, reason = verdict
            else:
                ok, reason = False, report.summary
            done_share = int(100 * position / (len(steps) + 1))
            if ok:
                self.failures = 0
                self.history.append(f"step {step} '{description}': done ({reason})")
                self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, step, index=position,
                                  description=description, reason=reason)
                self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=False,
                                  progress_percent=done_share, confidence=self._confidence,
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
    ) -> tuple[bool, str]:
        try:
            verdict = await self.validator.judge(
                target, final, evidence, self.saved_data, observation, step
            )
        except AnswerError as exc:
            self.emitter.emit(EventType.VALIDATE_FAIL, Actor.VALIDATOR, step, is_valid=False,
                              reason=f"the validator's answer could not be used: {exc}", final=final)
            return False, f"no usable verdict ({exc})"
        self._confidence = verdict.confidence
        self._last_answer = verdict.answer
        kind = EventType.VALIDATE_OK if verdict.is_valid else EventType.VALIDATE_FAIL
        self.emitter.emit(kind, Actor.VALIDATOR, step, is_valid=verdict.is_valid, reason=verdict.reason,
                          answer=verdict.answer, confidence=verdict.confidence, final=final)
        return verdict.is_valid, verdict.reason

    async def _final_check(self, planner_answer: str) -> tuple[bool, str, str, Observation]:
        evidence = list(self.history)
        if planner_answer:
            evidence.append(f"planner's answer: {planner_answer}")
        observation = await observe(self.operator, self.emitter, self.steps_run or None)
        ok, reason = await self._judge(self.options.goal, True, evidence, observation, self.steps_run or None)
        if ok:
            self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, self.steps_run or None,
                              achieved=True, progress_percent=100, confidence=self._confidence,
                              description=reason)
        return ok, reason, self._last_answer or planner_answer, observation

    def _count_failure(self, reason: str) -> None:
        self.failures += 1
        if self.failures >= self.options.max_failures:
            raise _Finish(SessionResult(
                status=Status.FAILED,
                reason=f"{self.failures} failures in a row (--max-failures); last: {reason}",
            ))

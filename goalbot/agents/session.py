"""The session loop: clarify → plan → approval → Navigator → Validator, until the goal or a stop.

The Planner re-plans when a step fails, when the Validator rejects the result, and every
`planning_interval` steps. The safety policies that concern whole steps live here; the ones that
concern single actions live in `guards`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from goalbot.agents.choosing import PolicyError, policies_of
from goalbot.agents.control import SessionControl
from goalbot.agents.crew import Crew
from goalbot.agents.domains import Domains
from goalbot.agents.gathering import Reading
from goalbot.agents.navigator import Navigator, NavigatorSettings
from goalbot.agents.observing import picture_of
from goalbot.agents.options import RunOptions
from goalbot.agents.outcome import Finish, SessionResult, Status, finish
from goalbot.agents.planner import Planner
from goalbot.agents.policies import SitePace, Streak
from goalbot.agents.progress import ResumePoint, RunState
from goalbot.agents.secrets import Secrets
from goalbot.agents.validator import Validator
from goalbot.events import Actor, Bus, EventType
from goalbot.llm.client import ROLES, ModelSetup
from goalbot.actions import Action
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.jsonactions import JsonDialect
from goalbot.llm.repair import NoJson
from goalbot.llm.parsing import AnswerError
from goalbot.llm.tools import PlanAnswer, VerdictAnswer
from goalbot.operators.base import Observation, Operator, OperatorError
from goalbot.payloads import PolicyName

__all__ = ["ModelSetup", "ResumePoint", "RunOptions", "Session", "SessionResult", "Status"]


class Session:
    """One run of a goal, put together in one place: every collaborator gets what it needs when
    it is made, and the secrets' scrubber sits in front of the events and the prompts from the start."""

    def __init__(
        self, options: RunOptions, operator: Operator, model: ModelSetup | None, bus: Bus,
        control: SessionControl, secrets: Secrets | None = None, domains: Domains | None = None,
        resume: ResumePoint | None = None, pace: SitePace | None = None, crew: Crew | None = None,
    ) -> None:
        """`crew`: the one a recipe's rerun began with, when the goal is planned from where it
        stopped (`take_over`): the same browser, events and secrets."""
        self.crew = crew or Crew(options, operator, bus, control, secrets, domains, model, resume, pace)
        self.options, self.operator, self.control = options, operator, control
        self.secrets, self.emitter, self.camera, self.person = (self.crew.secrets, self.crew.emitter,
                                                                self.crew.camera, self.crew.person)
        assert self.crew.client is not None  # a run of a goal always has its model
        self.client = self.crew.client
        self.resumed = resume is not None
        self.state = resume.state if resume else RunState()
        self.failures = 0
        self.dialogue = Dialogue(self.client, self.crew.dialects, options.answer_retries, options.authored,
                                 self.crew.requests)
        self.planner = Planner(self.dialogue)
        self.validator = Validator(self.dialogue)
        self.navigator = Navigator(
            self.dialogue, operator, self.camera, self.crew.hands, self.person, self.crew.gatherer,
            self.state.saved_data,
            NavigatorSettings(max_turns=options.max_turns_per_step, max_actions=options.max_actions_per_step,
                              max_failures=options.max_failures, vision=options.vision, coords=options.coords),
        )
        self.low_confidence = Streak(options.policy.low_confidence_limit)
        self.stuck_pages: list[str] = []  # the page after each failed step in a row

    @property
    def session_id(self) -> str:
        return self.crew.session_id

    @property
    def history(self) -> list[str]:
        return self.state.history

    @property
    def saved_data(self) -> dict[str, str]:
        return self.state.saved_data

    async def run(self) -> SessionResult:
        return await self.crew.live(self._announce, self._drive)

    def _announce(self) -> None:
        o = self.options
        if self.resumed:
            self.emitter.emit(EventType.TASK_RESUME, Actor.SYSTEM, self.state.steps_run or None,
                              by="goalbot resume", resumed=True, after_step=self.state.steps_run,
                              remaining=self.state.remaining)
            return
        self.emitter.emit(
            EventType.TASK_START, Actor.SYSTEM, None, goal=o.goal, url=o.url,
            model=self.client.config.model, base_url=self.client.config.base_url,
            operator=self.operator.name, max_steps=o.max_steps,
            models={role: self.client.config.model_for(role) for role in ROLES},
            dialects={role: self.dialogue.dialects.asked(role).value for role in ROLES},
            options=o.model_dump(mode="json", exclude={"goal", "url"}),
            auto_approve=self.control.auto_approve,
        )

    # -- the loop ----------------------------------------------------------------------------

    async def start(self) -> None:
        """The browser (or the screen) at the start page; a failed run that could not start else."""
        try:
            await self.operator.start(self.options.url)
        except OperatorError as exc:
            raise Finish(SessionResult(status=Status.FAILED, reason=str(exc), could_not_start=True)) from exc

    async def _drive(self) -> SessionResult:
        await self.start()
        self.client.load_package()
        observation = await self._look()
        feedback: str | None = None
        if self.state.remaining:  # resumed: the person approved these before the cut
            observation, feedback = await self._run_steps(observation)
            if feedback is None:
                observation, feedback = await self._check_goal("", "every step passed")
        return await self._planned(observation, feedback)

    async def take_over(self, why: str) -> SessionResult:
        """The goal planned from the page a recipe's rerun left (`why`: where and how it stopped),
        in its session: the browser is already where the rerun got to."""
        self.client.load_package()
        return await self._planned(await self._look(), why)

    async def _planned(self, observation: Observation, feedback: str | None) -> SessionResult:
        while True:
            await self.person.pause_point(self.state.steps_run or None)
            plan = await self._plan(observation, feedback)
            feedback = None
            if plan.question and not plan.steps and not plan.done:
                await self._clarify(plan.question)
                continue
            if plan.done or not plan.web_task:
                observation, feedback = await self._check_goal(plan.final_answer, "the planner said done")
                continue
            steps, rejection = await self._approved_steps(plan)
            if steps is None:
                feedback = rejection
                continue
            self.state.plan, self.state.plan_done = steps, 0
            self.state.long_steps = [s for n, s in enumerate(plan.steps, 1) if n in plan.long_steps and s in steps]
            observation, feedback = await self._run_steps(observation, self._first_actions(plan, steps))
            if feedback is None:
                observation, feedback = await self._check_goal("", "every step passed")

    async def _look(self, told: bool = False) -> Observation:
        return await self.camera.look(self.state.steps_run or None, key=True, seen=self.options.vision, told=told)

    async def _check_goal(self, planner_answer: str, why: str) -> tuple[Observation, str]:
        """Ends the session when the Validator confirms the goal; else the reason to re-plan."""
        verdict, observation = await self._final_check(planner_answer)
        if verdict.is_valid:
            verdict.answer = verdict.answer or planner_answer
            await self._reached(verdict, self.state.steps_run or None)
        feedback = f"{why} but the goal is not reached: {verdict.reason}"
        self._count_failure(feedback)
        return observation, feedback

    async def _plan(self, observation: Observation, feedback: str | None) -> PlanAnswer:
        step = self.state.steps_run or None
        while True:
            try:
                plan = await self.planner.plan(
                    self.options.goal, observation, self.history, feedback, step,
                    await picture_of(observation, self.options.vision), self.state.clarifications,
                )
            except AnswerError as exc:
                raise finish(Status.FAILED, f"the planner's answers could not be used: {exc}") from exc
            self.state.plan_revision += 1
            # Viewers prompt for approval only when the person will be asked.
            asks_approval = (bool(plan.steps) and plan.web_task and not plan.done
                             and plan.steps != self.state.remaining and not self.control.auto_approve)
            self.emitter.emit(
                EventType.PLAN_PROPOSED, Actor.PLANNER, step,
                steps=plan.steps, reasoning=plan.reasoning, revision=self.state.plan_revision,
                done=plan.done, observation=plan.observation, question=plan.question,
                asks_approval=asks_approval, policies=self._drafted(plan, tell=True),
                long_steps=plan.long_steps,
            )
            self.emitter.emit(
                EventType.GOAL_STATUS, Actor.PLANNER, step, achieved=False,
                progress_percent=plan.progress_percent, confidence=plan.confidence,
                description=plan.observation,
            )
            if not await self._unsure(plan.confidence, step):
                return plan
            observation = await self._look(told=True)

    async def _clarify(self, question: str) -> None:
        """The goal lacks something only the person knows: ask before planning any further."""
        step = self.state.steps_run or None
        if not self.control.can_ask:
            raise finish(Status.FAILED, f"the goal needs more before it can be planned: {question}")
        answer = await self.person.answer(question, step or 0, Actor.PLANNER)
        if answer is None:
            raise finish(Status.CANCELLED, f"the person did not answer: {question}")
        self.state.clarifications.append(f"{question} — {answer}")

    async def _approved_steps(self, plan: PlanAnswer) -> tuple[list[str] | None, str]:
        """The steps to run as the person approved them, or None and why they rejected the plan."""
        if not plan.steps:
            raise finish(Status.FAILED, "the planner proposed no steps and did not say done")
        if plan.steps == self.state.remaining:  # a re-plan that keeps what the person approved
            self.emitter.emit(EventType.PLAN_APPROVED, Actor.SYSTEM, None, steps=plan.steps,
                              by="unchanged since approved")
            return plan.steps, ""
        decision = await self.control.decide()
        if not decision.approved:
            self.emitter.emit(
                EventType.PLAN_REJECTED, Actor.USER, None, steps=plan.steps,
                feedback=decision.feedback, by=decision.by,
            )
            return None, f"the person rejected the plan: {decision.feedback or 'no reason given'}"
        steps = [s.strip() for s in decision.steps or plan.steps if s.strip()]
        edited = steps != plan.steps
        policies = self._drafted(plan) if decision.policies is None else decision.policies
        try:
            approved = policies_of(policies, "the approved policies")
        except PolicyError as exc:  # a viewer in another process sent them: checked like a file
            raise finish(Status.FAILED, str(exc)) from exc
        self.crew.gatherer.policies.update(approved)
        self.emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps, by=decision.by,
                          edited=edited, policies={name: p.model_dump(mode="json") for name, p in approved.items()})
        if edited:
            self.history.append(f"the person edited the plan to: {'; '.join(steps)}")
        if decision.policies is not None and policies != self._drafted(plan):
            self.history.append("the person set the choice policies to: "
                                + "; ".join(f"{name}: {p.words()}" for name, p in approved.items()))
        return steps, ""

    def _drafted(self, plan: PlanAnswer, tell: bool = False) -> dict[str, Any]:
        """The planner's draft policies that are usable; one that is not is left out, and (`tell`,
        when the plan is first shown) the planner is told why."""
        usable: dict[str, Any] = {}
        for name, body in plan.policies.items():
            try:
                usable[name] = policies_of({name: body}, "the planner's draft")[name].model_dump(mode="json")
            except PolicyError as exc:
                if tell:
                    self.history.append(f"the drafted policy {name} was left out: {exc}")
        return usable

    def _first_actions(self, plan: PlanAnswer, approved: list[str]) -> list[Action]:
        """The actions the planner gave with a one-step plan, when the person approved it as it
        was: they save the navigator's first call. Unusable ones are dropped; the navigator asks."""
        if not plan.first_actions or len(approved) != 1 or approved != plan.steps:
            return []
        try:
            return JsonDialect().parse(json.dumps(plan.first_actions))
        except (NoJson, AnswerError) as exc:
            self.history.append(f"the planner's first actions were not used: {exc}")
            return []

    async def _run_steps(self, observation: Observation, first: list[Action] | None = None,
                         ) -> tuple[Observation, str | None]:
        """Runs the approved steps that remain, the first beginning with `first` when given;
        returns why to re-plan, or None when all passed."""
        since_plan = 0
        while self.state.remaining:
            if since_plan and self.options.planning_interval and since_plan % self.options.planning_interval == 0:
                return observation, (f"planning interval: {since_plan} steps since the last plan; "
                                     "check that the remaining steps still fit the page")
            await self.person.pause_point(self.state.steps_run or None)
            if self.state.steps_run >= self.options.max_steps:
                message = f"reached --max-steps ({self.options.max_steps})"
                self._fired(PolicyName.MAX_STEPS, message)
                raise finish(Status.FAILED, message)
            description = self.state.remaining[0]
            position = self.state.plan_done + 1
            self.state.steps_run += 1
            step = self.state.steps_run
            since_plan += 1
            self.emitter.emit(EventType.STEP_START, Actor.PLANNER, step, index=position,
                              description=description)
            turns = self.options.max_turns_per_step * (2 if description in self.state.long_steps else 1)
            report = await self.navigator.run_step(description, step, observation, first, turns)
            first = None
            observation = report.observation
            evidence = report.done + [f"navigator's summary: {report.summary}"]
            last = len(self.state.remaining) == 1
            if not report.success and not report.out_of_turns:  # it gave up: nothing to judge
                verdict = VerdictAnswer(is_valid=False, reason=report.summary, confidence=0.0)
            elif last:  # after the plan's last step, judging the step and the goal is one check
                carried_out = f"step {step} '{description}', the plan's last, was just carried out:"
                verdict = await self._judge(self.options.goal, True, [*self.history, carried_out, *evidence],
                                            observation, step)
            else:
                verdict = await self._judge(description, False, evidence, observation, step)
            if not verdict.is_valid:
                judged_goal = last and (report.success or report.out_of_turns)
                return observation, await self._step_failed(description, position, verdict, step, judged_goal)
            self._step_passed(description, position, verdict, step)
            if last:
                await self._reached(verdict, step)
            if await self._unsure(verdict.confidence, step):
                observation = await self._look(told=True)
        return observation, None

    def _step_passed(self, description: str, position: int, verdict: VerdictAnswer, step: int) -> None:
        self.failures = 0
        self.stuck_pages.clear()
        self.state.plan_done += 1
        self.history.append(f"step {step} '{description}': done ({verdict.reason})")
        self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, step, index=position,
                          description=description, reason=verdict.reason)
        self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=False,
                          progress_percent=self._progress(), confidence=verdict.confidence,
                          description=verdict.reason)

    async def _step_failed(
        self, description: str, position: int, verdict: VerdictAnswer, step: int, judged_goal: bool = False
    ) -> str:
        reason = f"the goal is not reached: {verdict.reason}" if judged_goal else verdict.reason
        self.history.append(f"step {step} '{description}': FAILED ({reason})")
        self.emitter.emit(EventType.STEP_FAIL, Actor.VALIDATOR, step, index=position,
                          description=description, reason=reason)
        self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=False,
                          progress_percent=self._progress(), confidence=verdict.confidence,
                          description=f"step failed: {reason}")
        self._count_failure(reason)  # an explicit --max-failures is the firmer limit
        await self._check_progress(step)
        return f"step '{description}' failed: {reason}"

    def _progress(self) -> int:
        """Share of the approved plan done. The last step's verdict judges the goal too, so a plan
        of two steps is half done after the first and whole after the second."""
        return min(100, int(100 * self.state.plan_done / max(1, len(self.state.plan))))

    async def _check_progress(self, step: int) -> None:
        """Failed steps in a row on a page that never changed: the run goes round in circles."""
        self.stuck_pages.append(await self.operator.signature())
        limit = self.options.policy.no_progress_steps
        last = self.stuck_pages[-limit:]
        if len(last) < limit or not last[0] or len(set(last)) != 1:
            return
        message = f"{limit} steps in a row failed and the page did not change"
        self._fired(PolicyName.NO_PROGRESS, message, step)
        self.stuck_pages.clear()
        if not await self.person.keep_trying(message, step):
            raise finish(Status.FAILED, f"no progress: {message}; stopped")
        self.failures = 0

    async def _unsure(self, confidence: float, step: int | None) -> bool:
        """Confidence too low too often: wait, then the caller looks at the page again."""
        policy = self.options.policy
        if not self.low_confidence.note(confidence < policy.low_confidence):
            return False
        self._fired(PolicyName.LOW_CONFIDENCE, f"confidence below {policy.low_confidence} "
                    f"{policy.low_confidence_limit} times in a row; waiting "
                    f"{policy.low_confidence_wait_s:g} s and looking again", step)
        await asyncio.sleep(policy.low_confidence_wait_s)
        return True

    def _fired(self, policy: PolicyName, message: str, step: int | None = None) -> None:
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=policy, message=message)

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
        observation = await self._look()
        verdict = await self._judge(self.options.goal, True, evidence, observation, self.state.steps_run or None)
        return verdict, observation

    async def _reached(self, verdict: VerdictAnswer, step: int | None) -> None:
        """The Validator confirmed the goal: the session ends here, with the data the person's
        schema asks for when there is one."""
        answer = verdict.answer
        schema = self.options.output_schema
        if schema is not None:
            gatherer = self.crew.gatherer
            read = await gatherer.read("result", Reading(instruction=self.options.goal, schema_=schema),
                                       await self._look(), step or 0)
            if not read.ok:
                raise finish(Status.FAILED, "the answer does not fit --output-schema: "
                             + ("; ".join(read.errors) or read.message))
            answer = json.dumps(gatherer.kept["result"].data, ensure_ascii=False)
        self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, step, achieved=True,
                          progress_percent=100, confidence=verdict.confidence, description=verdict.reason)
        raise Finish(SessionResult(status=Status.OK, reason=verdict.reason, answer=answer))

    def _count_failure(self, reason: str) -> None:
        self.failures += 1
        if self.failures >= self.options.max_failures:
            message = f"{self.failures} failures in a row (--max-failures); last: {reason}"
            self._fired(PolicyName.MAX_FAILURES, message, self.state.steps_run or None)
            raise finish(Status.FAILED, message)

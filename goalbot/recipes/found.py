"""A rerun the typed goal found (`service.recipe_finding`) rather than one the person named: its plan
is proposed for approval like a planned one; a recipe that only may do the goal asks the matcher
once to bind its variables, and the person sees both choices — rerun it, or plan the goal; and a
found rerun that stops (an element no rung finds, a page it did not expect) hands the goal to the
planner in the same session, from the page where it stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goalbot.agents.outcome import Finish, SessionResult, Status, finish
from goalbot.events import Actor, EventType
from goalbot.llm.client import ModelError
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.parsing import AnswerError
from goalbot.payloads import PLANNED_INSTEAD, PolicyName
from goalbot.recipes.binding import bind
from goalbot.recipes.finding import found_line
from goalbot.recipes.variables import VARIABLE, fill

if TYPE_CHECKING:
    from goalbot.agents.control import SessionControl
    from goalbot.agents.crew import Crew
    from goalbot.agents.options import RunOptions
    from goalbot.recipes.model import Recipe
    from goalbot.recipes.rerun import Rerun


class FoundRecipe:
    """The approval and hand-over of a rerun the typed goal found. `values` is the rerun's own:
    what the matcher binds, the rerun types."""

    def __init__(self, rerun: Rerun, recipe: Recipe, options: RunOptions, crew: Crew, control: SessionControl,
                 values: dict[str, str]) -> None:
        self.rerun, self.recipe, self.options, self.crew, self.control = rerun, recipe, options, crew, control
        self.emitter, self.client, self.values = crew.emitter, crew.client, values

    @property
    def name(self) -> str:
        return f"recipe {self.recipe.name} v{self.recipe.version}"

    async def approved(self) -> str:
        """"" once the person approves the found recipe's plan (or --yes does); else why the goal
        is planned instead (turned down, or the matcher said it is not the same goal)."""
        said = self.rerun.found
        if self.rerun.unsure:
            bound, why_not = await self._bound()
            if why_not:
                return f"{self.name} may not do the goal: {why_not}"
            said = f"{bound} — the matcher bound it, as the goal's words did not surely fit ({self.rerun.unsure})"
        steps = [fill(step.description, self.values) for step in self.recipe.steps]
        choice = "; approve to rerun it, or turn it down to plan the goal" if self.client else ""
        self.emitter.emit(EventType.PLAN_PROPOSED, Actor.PLANNER, None, steps=steps, revision=1,
                          reasoning=said + choice, asks_approval=not self.control.auto_approve)
        decision = await self.control.decide()
        if decision.approved:
            self.emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps, by=decision.by)
            return ""
        self.emitter.emit(EventType.PLAN_REJECTED, Actor.USER, None, steps=steps, feedback=decision.feedback,
                          by=decision.by)
        if self.client is None:
            raise finish(Status.CANCELLED, f"the person rejected the recipe's plan ({said}); "
                                           "--no-recipes plans the goal anew")
        told = f": {decision.feedback}" if decision.feedback else ""
        return f"the person turned down {self.name}{told}"

    async def _bound(self) -> tuple[str, str]:
        """The matcher's one call: ("from recipe … , NAME = value", "") once bound, else ("", why not)."""
        if self.client is None:
            raise finish(Status.FAILED, f"{self.rerun.found} might do the goal ({self.rerun.unsure}), but no model "
                                        "can be asked to bind its values: pass --var NAME=…, or --no-recipes")
        slots = list(dict.fromkeys(found.group(1) for found in VARIABLE.finditer(self.recipe.goal)))
        given = {name: value for name, value in self.rerun.values.items() if value}
        # One call: an answer that cannot be used is not asked again, the goal is planned instead.
        matcher = Dialogue(self.client, self.crew.dialects, retries=0, kept=self.crew.requests)
        try:
            answer = await bind(matcher, self.options.goal, self.recipe.goal, slots, given,
                                self.rerun.unsure)
        except (AnswerError, ModelError) as exc:
            return "", f"the matcher's answer could not be used: {exc}"
        if not answer.same:
            return "", answer.reason or "the matcher says it is another goal"
        self.values.update(answer.values)
        self.rerun.values.update(answer.values)
        said = found_line(self.recipe.name, self.recipe.version, answer.values)
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, None, policy=PolicyName.RECIPE_FOUND,
                          message=f"the matcher bound {said.removeprefix('from ')}: {answer.reason}")
        return said, ""

    def hands_over(self, result: SessionResult) -> bool:
        """A found rerun that failed on the page (not one stopped, or whose browser never came up)
        goes on planned, when there is a model to plan with."""
        return (bool(self.rerun.found) and self.client is not None and result.status is Status.FAILED
                and not result.could_not_start and not self.control.stop_requested)

    async def planned_instead(self, why: str, started: bool, steps_done: int = 0) -> SessionResult:
        """The goal planned from where the rerun is (its start page, when it never began), its
        steps numbered after the `steps_done` the rerun ran."""
        from goalbot.agents.session import Session  # the planning loop, only when a found rerun hands over

        if self.client is None:
            raise finish(Status.FAILED, f"{why}; and no model can be asked to plan the goal")
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, None, policy=PolicyName.RECIPE_FOUND,
                          message=f"{why}: {PLANNED_INSTEAD}")
        session = Session(self.options, self.crew.operator, None, self.emitter.bus, self.control, crew=self.crew)
        session.state.plan_revision = 1  # the recipe's plan was the first: viewers open the planner's as new
        session.state.steps_run = steps_done  # its steps come after the recipe's that ran
        try:
            if not started:
                await session.start()
            return await session.take_over(f"{why}. Plan the goal from the page as it is now")
        except Finish as ended:
            ended.result.reason = f"{why}; planned instead: {ended.result.reason}"
            raise

"""How a rerun goes through a recipe's steps when they are not one straight line: the way a
condition on the page picks (a branch), another recipe run as a step (a block), a pass for every
record of a list (a loop), and the site's sign-in recipe when a session expired mid-rerun. The
run these serve (`RecipeRun`) carries each action out and checks it."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from goalbot.agents.outcome import Finish, Status, finish
from goalbot.events import Actor, EventType
from goalbot.operators.base import Observation
from goalbot.payloads import PolicyName, Rung
from goalbot.recipes.expecting import path_fits, shows
from goalbot.recipes.locate import Found, locate, strictly
from goalbot.recipes.model import Block, Branch, Evidence, Loop, Recipe, RecipeAction, RecipeStep, When
from goalbot.recipes.variables import record_values

if TYPE_CHECKING:
    from goalbot.agents.gathering import Gatherer
    from goalbot.agents.observing import Camera
    from goalbot.agents.options import RunOptions
    from goalbot.agents.person import Person
    from goalbot.events import Emitter
    from goalbot.operators.base import Operator
    from goalbot.recipes.rerun import Rerun

T = TypeVar("T")

MAX_SIGN_INS = 2  # a sign-in that does not take is not tried again and again


def asks_to_sign_in(observation: Observation) -> bool:
    """The page wants a password: a sign-in wall, where a recipe that expected its app stands."""
    return any(element.input_type == "password" for element in observation.elements.values())


class StepFlows:
    """The step-level flows of a rerun; `RecipeRun` supplies the rest."""

    rerun: Rerun
    recipe: Recipe  # the working copy: a patch changes it
    options: RunOptions
    operator: Operator
    emitter: Emitter
    camera: Camera
    person: Person
    gatherer: Gatherer
    values: dict[str, str]  # the {{variables}} in force: a block's own while it runs, a pass's record's
    row: tuple[str, int] | None  # a loop's pass: its record's row (the rows' selector, its row among them)
    signing_in: bool  # the sign-in recipe runs: its pages are wherever the wall was
    sign_ins: int

    async def _act(self, recorded: RecipeAction, position: int | None, step: int,
                   observation: Observation, again: bool = False) -> tuple[Observation, bool]:
        raise NotImplementedError

    def _fail(self, step: int, error: str, message: str, shown: dict[str, object] | None = None) -> Finish:
        raise NotImplementedError

    def _ended(self, step: int, error: str, message: str) -> Finish:
        raise NotImplementedError

    def _filled(self, value: T) -> T:
        raise NotImplementedError

    def _named(self, evidence: Evidence) -> Evidence:
        raise NotImplementedError

    async def _step(self, step: RecipeStep, number: int, observation: Observation, recorded: bool) -> Observation:
        """One step: its block, the way its condition picks, or its recorded actions. `recorded`:
        a step of the recipe itself, whose actions patches and healing memory number."""
        if step.block is not None:
            return await self._block(step.block, number, observation)
        if step.for_each is not None:
            return await self._loop(step, step.for_each, number, observation)
        done = 0
        branch = await self._branch(step, number, observation)
        while branch is None and done < len(step.actions):
            position = sum(len(s.actions) for s in self.recipe.steps[:number - 1]) + done + 1 if recorded else None
            observation, again = await self._act(step.actions[done], position, number, observation)
            done += 0 if again else 1  # a patch changed the recipe here: run what stands here now
        for action in branch.actions if branch is not None else []:
            # Another way's actions have no place in the numbering patches and memory use.
            observation, _ = await self._act(action, None, number, observation)
        return observation

    async def _loop(self, step: RecipeStep, loop: Loop, number: int, observation: Observation) -> Observation:
        """The loop's actions once for every record of its list as the page shows it today, each
        pass in its record's row and said as a step of its own."""
        try:
            records = self.gatherer.candidates(loop.over)
        except LookupError as exc:
            raise self._ended(number, "BadRecipe", f"the loop over {loop.over}: {exc}") from exc
        if len(records) > loop.most:
            raise self._ended(number, "LoopTooLong", f"{loop.over} holds {len(records)} records; this loop goes "
                                                     f"through {loop.most} at most")
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_LOOP,
                          message=f"step {number} goes through the {len(records)} records of {loop.over}")
        outer = self.values
        try:
            for n, record in enumerate(records):
                self.row = self.gatherer.row(loop.over, n)
                if self.row is None:
                    raise self._ended(number, "BadRecipe", f"{loop.over} was not read from rows on the page: "
                                                           "a loop finds each pass's elements in its row")
                self.values = {**outer, **record_values(record)}
                said = ", ".join(f"{key} {value}" for key, value in list(record_values(record).items())[:2])
                description = f"{self._filled(step.description)} — pass {n + 1} of {len(records)}" + (
                    f" ({said.replace('each_', '')})" if said else "")
                self.emitter.emit(EventType.STEP_START, Actor.PLANNER, number, index=number, description=description)
                for action in loop.actions:
                    observation, _ = await self._act(action, None, number, observation)
                self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, number, index=number, description=description,
                                  reason="as recorded, in its row")
        finally:
            self.values, self.row = outer, None
        return observation

    async def _in_row(self, recorded: RecipeAction, step: int, arguments: dict[str, object],
                      observation: Observation) -> Found:
        """A pass's element: the one in its record's row with the recorded role and name (today's
        record's values in it); never a look-alike, never one of another row."""
        assert recorded.target is not None and self.row is not None
        target = self._named(recorded.target)
        wanted = " ".join(target.name.split()).casefold()
        shown = observation.elements
        hits = [index for index in await self.operator.items(*self.row) if index in shown
                and shown[index].role == target.role and " ".join(shown[index].name.split()).casefold() == wanted]
        if len(hits) != 1:
            how = "no" if not hits else f"{len(hits)} elements like"
            raise self._fail(step, "TargetNotFound", f"this pass's row holds {how} {target.role} {target.name!r}",
                             arguments)
        return Found(index=hits[0], rung=Rung.ROW)

    async def _block(self, block: Block, number: int, observation: Observation) -> Observation:
        """Another recipe's steps, run as this step with its variables bound in this one's words."""
        recipe = self.rerun.blocks.get(block.key())
        if recipe is None:
            raise self._ended(number, "BadRecipe", f"block {block.recipe} was not read before the rerun started")
        values = {name: self._filled(block.values[name]) if name in block.values else self.values.get(name, "")
                  for name in recipe.variables}
        bound = "".join(f", {name} = {value}" for name, value in values.items())
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_BLOCK,
                          message=f"step {number} runs block {recipe.name} v{recipe.version}{bound}")
        return await self._inside(recipe, values, number, observation)

    async def _inside(self, recipe: Recipe, values: dict[str, str], number: int,
                      observation: Observation) -> Observation:
        """`recipe`'s steps as part of step `number`, with its own variables in force."""
        outer, self.values = self.values, values
        try:
            for step in recipe.steps:
                observation = await self._step(step, number, observation, recorded=False)
        finally:
            self.values = outer
        return observation

    async def _signed_in_again(self, number: int, observation: Observation) -> Observation | None:
        """A page that asks to sign in where the recipe expected the app (a session that expired
        in a kept profile): the site's sign-in recipe runs, with no model, and the rerun carries
        on from the page it leaves. With none, a checkpoint says so. None: the page asks nothing."""
        if self.signing_in or self.sign_ins >= MAX_SIGN_INS or not asks_to_sign_in(observation):
            return None
        self.sign_ins += 1
        login = await self._sign_in_here(observation)
        if login is None:
            none = self.rerun.no_sign_in or "no sign-in recipe of this site finds its first field on this page"
            what = (f"recipe step {number}: the page asks to sign in again and {none}. "
                    "Sign in, then say GO to go on, or NOT GO to stop")
            if not await self.person.checkpoint(what, number):
                raise finish(Status.CANCELLED, f"step {number}: the page asks to sign in again and {none}")
            return await self.camera.look(number, seen=self.options.vision)
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_LOGIN,
                          message=f"step {number}: the page asks to sign in again: running recipe "
                                  f"{login.name} v{login.version}")
        self.signing_in = True
        try:
            return await self._inside(login, {name: self.values.get(name, "") for name in login.variables},
                                      number, observation)
        finally:
            self.signing_in = False

    async def _sign_in_here(self, observation: Observation) -> Recipe | None:
        """The first sign-in recipe whose first element is surely on this page: the wall it was
        recorded on, not another app's of the same site."""
        for login in self.rerun.sign_ins:
            first = next((action.target for action in login.every_action if action.target is not None), None)
            if first is not None and await locate(self._named(first), observation, self.operator) is not None:
                return login
        return None

    async def _branch(self, step: RecipeStep, number: int, observation: Observation) -> Branch | None:
        """The first of the step's other ways whose condition holds on the page; None: the
        recorded way (when none holds, or the step has no other)."""
        for n, branch in enumerate(step.branches, 2):
            if await self._holds(branch.when, observation):
                self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_BRANCH,
                                  message=f"step {number} done its way {n}: {self._filled(branch.when.words())}")
                return branch
        return None

    async def _holds(self, when: When, observation: Observation) -> bool:
        if when.url_contains and not path_fits(self._filled(when.url_contains), urlsplit(observation.url).path or "/"):
            return False
        if when.text and not shows(observation, self._filled(when.text)):
            return False
        named = self._named(when.element) if when.element is not None else None
        return named is None or await strictly(named, observation, self.operator) is not None

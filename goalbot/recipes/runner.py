"""A rerun: a recipe's actions carried out one by one with no model, each element found by the
ladder (`locate`), each action through the same guards as a run (GO / NOT GO, domains, secrets),
each result checked against what it did the first time. The events are a run's events.

The steps need not be one straight line: the way a condition on the page picks (a branch),
another recipe run as a step (a block), a pass for every record of a list (a loop), and the
site's sign-in recipe when a session expired mid-rerun. Each runs in a `Scope` of its own, passed
down to every action it takes."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlsplit

from pydantic import ValidationError

from goalbot import actions as A
from goalbot.agents.control import SessionControl
from goalbot.agents.domains import Domains
from goalbot.agents.crew import Crew
from goalbot.agents.gathering import Gathered, Reading
from goalbot.agents.navigator import target_of
from goalbot.agents.observing import picture_of
from goalbot.agents.policies import SitePace
from goalbot.agents.outcome import Finish, SessionResult, Status, finish
from goalbot.agents.secrets import SecretError, Secrets
from goalbot.agents.options import RunOptions
from goalbot.events import Actor, Bus, EventType
from goalbot.llm.client import ModelError, ModelSetup
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.parsing import AnswerError
from goalbot.operators.base import Observation, Operator, OperatorError
from goalbot.payloads import PolicyName, Rung
from goalbot.recipes.branching import branched
from goalbot.recipes.expecting import (
    EXPECT_PATIENCE_S, POLL_S, holds_state, path_fits, shows, unmet_expectation, went_away,
)
from goalbot.recipes.found import FoundRecipe
from goalbot.recipes.rerun import Rerun
from goalbot.recipes.locate import Found, anything_alike, locate, present, strictly
from goalbot.recipes.model import (
    MAX_BRANCHES, Block, Branch, Evidence, Loop, Recipe, RecipeAction, RecipeStep, Recorded, When,
)
from goalbot.recipes.patching import PatchError, Patcher, apply, new_hosts, steps_named
from goalbot.recipes.scope import Scope
from goalbot.recipes.variables import each_text, record_values, template

# CSS paths a look answers besides itself: a step's and the next one's, within what costs a look little.
EXPECTED_PATHS = 12
MAX_SIGN_INS = 2  # a sign-in that does not take is not tried again and again


def asks_to_sign_in(observation: Observation) -> bool:
    """The page wants a password: a sign-in wall, where a recipe that expected its app stands."""
    return any(element.input_type == "password" for element in observation.elements.values())


class RecipeRun:
    """One rerun of a recipe, made like a `Session` and ending like one."""

    def __init__(self, rerun: Rerun, options: RunOptions, operator: Operator, bus: Bus,
                 control: SessionControl, secrets: Secrets | None = None, domains: Domains | None = None,
                 model: ModelSetup | None = None, pace: SitePace | None = None) -> None:
        """`model`, when given, is asked for a patch when no rung finds an element; else the
        person is asked at a checkpoint. `pace`: the pace per site shared with other runs."""
        missing = [name for name in rerun.recipe.variables if name not in rerun.values]
        if missing:
            raise SecretError(f"the recipe needs --var {' --var '.join(f'{m}=…' for m in missing)}")
        # A working copy: a patch changes it, and a run that ends well keeps it as the next version.
        self.rerun, self.recipe = rerun, rerun.recipe.model_copy(deep=True)
        self.options = options = options.model_copy(update={"choice_policies": self.recipe.policies,
                                                            "variables": rerun.values})
        self.crew = Crew(options, operator, bus, control, secrets, domains, model, pace=pace)
        self.operator, self.control, self.hands, self.gatherer = operator, control, self.crew.hands, self.crew.gatherer
        self.secrets, self.emitter, self.camera, self.person = (self.crew.secrets, self.crew.emitter,
                                                                self.crew.camera, self.crew.person)
        self.heals: dict[int, Evidence] = {}  # what this rerun found by re-finding: tomorrow's memory
        self.patches: list[str] = []  # what the model's patches changed, in words
        self.found_by: dict[Rung, int] = {}  # how many actions each rung of the ladder found
        self.skipped = 0  # optional actions whose interstitial did not come
        self.kept = 0  # toggles that already held the state their click set: left as they were
        self.steps_done = 0  # the steps that ran: a planned run that takes over numbers its own after them
        # Every step ran as the (patched) recipe says: only then did its patches prove themselves.
        self.completed = False
        self.values = dict(rerun.values)  # the rerun's own {{variables}}: the matcher of a found one binds them
        self.sign_ins = 0
        self.found = FoundRecipe(rerun, self.recipe, options, self.crew, control, self.values)
        self._patched: RecipeAction | None = None  # the action the latest patch was for
        self.patched_steps: set[int] = set()  # the steps patches changed: new ways of doing them
        self.failed_ways: list[tuple[int, Branch]] = []  # (step, way) taken because its condition held, then failed
        self.client = self.crew.client
        self.patcher = Patcher(Dialogue(self.client, self.crew.dialects, options.answer_retries, options.authored,
                                        self.crew.requests)) if self.client else None

    @property
    def session_id(self) -> str:
        return self.crew.session_id

    def next_version(self) -> Recipe:
        """What a patched rerun that ended well leaves: the recipe with each way a patch found kept
        as a branch beside the recorded one."""
        return branched(self.rerun.recipe, self.recipe, self.patched_steps)

    async def run(self) -> SessionResult:
        return await self.crew.live(self._announce, self._ran)

    async def _ran(self) -> SessionResult:
        if self.rerun.unsure and self.control.auto_approve:  # a recipe that only may do the goal: the person's call
            return await self.found.planned_instead(f"{self.rerun.found} might do the goal ({self.rerun.unsure}), "
                                                    "but --yes takes only a recipe the goal surely names", started=False)
        if self.rerun.found:
            declined = await self.found.approved()
            if declined:
                return await self.found.planned_instead(declined, started=False)
        try:
            observation = await self._drive()
            answer = await self._result(observation) if self.recipe.result is not None else ""
            self.completed = True
        except Finish as ended:
            if not self.found.hands_over(ended.result):
                raise
            return await self.found.planned_instead(f"{self.found.name} stopped: {ended.result.reason}",
                                                    started=True, steps_done=self.steps_done)
        how = _how(self.found_by, self.skipped, self.kept)
        return SessionResult(status=Status.OK, reason=f"every step of recipe {self.recipe.name} "
                                                      f"v{self.recipe.version} ran {how}",
                             answer=answer)

    async def _result(self, observation: Observation) -> str:
        """The answer the recipe's run gave (`--output-schema`), read again where it was read."""
        recorded = self.recipe.result
        assert recorded is not None
        last = len(self.recipe.steps)
        reading = Reading(instruction=recorded.instruction, schema_=recorded.schema_, place=recorded.place,
                          network=recorded.network, other_places=recorded.other_places)
        read = await self.gatherer.read("result", reading, observation, last)
        self._reread(read, "result", recorded, last)
        if not read.ok:
            raise finish(Status.FAILED, "the answer does not fit its schema: " + ("; ".join(read.errors) or read.message))
        return json.dumps(self.gatherer.kept["result"].data, ensure_ascii=False)

    def _reread(self, read: Gathered, key: str, recorded: Recorded, step: int) -> None:
        """The extractor read what the recorded places no longer could: counted like a patch, and
        the new places kept in the next version."""
        if not (read.ok and read.by_model):
            return
        reading = self.gatherer.kept[key].reading
        if reading.place is None and reading.network is None:  # no new version for the same re-read tomorrow
            self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_PATCH,
                              message=f"{key} read by the model: this page shows no place to read it again")
            return
        # The places that read before are kept beside the new ones: a site that serves two layouts
        # at one address is read by each again, with no model, whichever it serves tomorrow.
        before = [place for place in [recorded.place, *recorded.other_places] if place and place != reading.place]
        recorded.place, recorded.network = reading.place, reading.network
        recorded.other_places = before[:MAX_BRANCHES]
        change = f"{key} read again by the model, at new places"
        self.patches.append(change)
        # Said as a patch is said: the recipe's metrics count it in its patch rate.
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_PATCH,
                          message=f"patched: {change}")

    def _announce(self) -> None:
        o, recipe = self.options, self.recipe
        self.emitter.emit(
            EventType.TASK_START, Actor.SYSTEM, None, goal=o.goal, url=o.url, model="", base_url="",
            operator=self.operator.name, max_steps=len(recipe.steps),
            options={**o.model_dump(mode="json", exclude={"goal", "url"}),
                     "recipe": recipe.name, "recipe_version": recipe.version,
                     **({"found": self.rerun.found} if self.rerun.found else {})},
        )
        if self.rerun.found:
            return  # its plan is proposed once it is known to be the one (`FoundRecipe`)
        # the person chose these steps by naming the recipe
        steps = [self._top.filled(step.description) for step in recipe.steps]
        self.emitter.emit(EventType.PLAN_PROPOSED, Actor.PLANNER, None, steps=steps, revision=1,
                          reasoning=f"recipe {recipe.name} v{recipe.version}", asks_approval=False)
        self.emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps,
                          by=f"goalbot rerun {recipe.name} (v{recipe.version})")

    async def _drive(self) -> Observation:
        try:
            await self.operator.start(self.options.url)
        except OperatorError as exc:
            raise Finish(SessionResult(status=Status.FAILED, reason=str(exc), could_not_start=True)) from exc
        self._expect(1)
        observation = await self.camera.look(None, key=True, seen=self.options.vision)
        scope = self._top
        for number, step in enumerate(self.recipe.steps, 1):
            await self.person.pause_point(number)
            self.emitter.emit(EventType.STEP_START, Actor.PLANNER, number, index=number,
                              description=scope.filled(step.description))
            before, skipped, kept = dict(self.found_by), self.skipped, self.kept
            observation = await self._step(step, number, observation, scope, recorded=True)
            how = _how({rung: count - before.get(rung, 0) for rung, count in self.found_by.items()},
                       self.skipped - skipped, self.kept - kept)
            self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, number, index=number,
                              description=scope.filled(step.description), reason=how)
            self.steps_done = number
            self._expect(number + 1)
            self.emitter.emit(EventType.GOAL_STATUS, Actor.VALIDATOR, number, achieved=number == len(self.recipe.steps),
                              progress_percent=100 * number // len(self.recipe.steps), confidence=1.0,
                              description=f"step {number} of {len(self.recipe.steps)} ran {how}")
        return observation

    @property
    def _top(self) -> Scope:
        """The recipe's own scope: the rerun's values, no row, no block."""
        return Scope(values=self.values)

    def _expect(self, number: int) -> None:
        """Each recorded element is looked for by its CSS path first, after a look: from the look
        before step `number` on, the looks answer its paths and the next step's (whose first action
        follows this step's last look)."""
        paths = [action.target.css for step in self.recipe.steps[number - 1:number + 1]
                 for action in step.every_action if action.target is not None and action.target.css]
        self.operator.expect_to_find(paths[:EXPECTED_PATHS])

    def _fail(self, step: int, error: str, message: str, shown: dict[str, object] | None = None) -> Finish:
        self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown or {}, message=message, error=error)
        return self._ended(step, error, message)

    def _ended(self, step: int, error: str, message: str) -> Finish:
        """The step failed (its ACT_FAIL said why): the rerun ends, rather than go on blindly."""
        self.emitter.emit(EventType.STEP_FAIL, Actor.VALIDATOR, step, index=step,
                          description=self._top.filled(self.recipe.steps[step - 1].description),
                          reason=f"{error}: {message}")
        return finish(Status.FAILED, f"step {step}: {error}: {message}")

    async def _act(self, recorded: RecipeAction, position: int | None, step: int, observation: Observation,
                   scope: Scope, again: bool = False, renewed: bool = False) -> tuple[Observation, bool]:
        """Runs one recorded action in `scope`; True with the page when a patch changed the recipe
        instead. `position`: its number among the recorded way's actions; None for another way's.
        `again`: the second try, after a banner that covered its element was dismissed; `renewed`:
        after the session it ran in ended under it and was signed in again."""
        await self.person.pause_point(step)
        arguments = {key: scope.filled(value) for key, value in recorded.action.model_dump().items()}
        if recorded.action.name in ("extract", "choose"):
            return await self._gather(recorded, step, observation, arguments, scope), False
        printed = "" if scope.signing_in else scope.filled(recorded.fingerprint.url_contains)
        if printed and not path_fits(printed, urlsplit(observation.url).path or "/"):
            observation = await self._signed_in_again(step, observation, scope) or observation
        if printed and not path_fits(printed, urlsplit(observation.url).path or "/"):
            raise self._fail(step, "ExpectationFailed", f"the page is {observation.url}, not the one the recipe "
                             f"expects ({printed})", arguments)
        if recorded.optional and await self._absent(recorded, position, observation, scope):
            self.skipped += 1
            where = recorded.target.overlay if recorded.target else "interstitial"
            self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_OPTIONAL,
                              message=f"skipped {recorded.words()}: its {where} is not on the page this time")
            return observation, False
        found: Found | None = None
        if recorded.target is not None:
            found, observation = await self._find(recorded, position, step, observation, arguments, scope)
            if found is None:
                return observation, True
            arguments["index"] = found.index
            if holds_state(recorded.expect.state, observation, found.index):
                self.kept += 1
                self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_STATE,
                                  message=f"left {recorded.words()} as it was: it is already {recorded.expect.state}")
                return observation, False
        try:
            action = A.ACTION_ADAPTER.validate_python(arguments)
        except ValidationError as exc:
            raise self._fail(step, "BadRecipe", f"the recorded action cannot be run: {exc}", arguments) from exc
        target = await target_of(action, observation, self.operator)
        if found is not None and found.rung is Rung.REFIND and target and position is not None:
            # Remembered for the next rerun of this version, and kept in a version a patch makes,
            # with today's values written back as the recipe's {{variables}}.
            self.heals[position] = recorded.target = each_text(
                Evidence.model_validate(target), lambda text: template(text, scope.values))
        rung = Rung.PATCH if recorded is self._patched else found.rung if found else Rung.DIRECT
        acted = await self.hands.act(action, observation, step, arguments, target, bad_secret="BadRecipe",
                                     resolved_by=rung)
        if not acted.ok and acted.error == "NotActionable" and "covered by" in acted.message and not again:
            # A banner that came after the look its optional step read: dismissed, then once more.
            looked = await self.camera.look(step, seen=self.options.vision)
            if await self._dismiss_seen(step, looked, scope, own=True):
                return await self._act(recorded, position, step, await self.camera.look(step), scope, again=True,
                                       renewed=renewed)
        if not acted.ok:
            raise self._ended(step, acted.error or "Failed", acted.message)
        self.found_by[rung] = self.found_by.get(rung, 0) + 1
        stayed = (recorded.expect.element_gone and found is not None
                  and not await went_away(self.operator, found.index)
                  # a banner's form that posted back: the page came back without it
                  and not (recorded.target is not None and recorded.target.overlay and recorded.target.css
                           and await self.operator.absent(recorded.target.css)))
        after = await self.camera.look(step, key=self._last_of_run(recorded))
        unmet, after = await unmet_expectation(recorded, acted.downloads, stayed, after, scope, self.operator,
                                               lambda: self.camera.look(step), self.secrets.scrub)
        if unmet is None:
            return after, False
        if not renewed and not scope.signing_in and asks_to_sign_in(after):
            # The session ended under the action (a download answered with the sign-in page): once
            # signed in again the action is done again, never taken as done.
            back = await self._signed_in_again(step, after, scope)
            if back is not None:
                return await self._act(recorded, position, step, back, scope, renewed=True)
        raise self._fail(step, "ExpectationFailed", unmet, arguments)

    async def _gather(self, recorded: RecipeAction, step: int, observation: Observation,
                      arguments: dict[str, object], scope: Scope) -> Observation:
        """A recorded `extract` reads its places (the model only when they no longer read right);
        a recorded `choose` picks by the recipe's policy on today's data, and clicks today's pick."""
        if recorded.action.name == "extract":
            key = str(arguments.get("key", ""))
            if recorded.reads is None:
                raise self._fail(step, "BadRecipe", f"the recipe's extract of {key!r} keeps no schema", arguments)
            reading = Reading(instruction=recorded.reads.instruction, schema_=recorded.reads.schema_,
                              place=recorded.reads.place, network=recorded.reads.network,
                              other_places=recorded.reads.other_places)
            read = await self.gatherer.extract(key, reading, observation, step, arguments)
            self._reread(read, key, recorded.reads, step)
            if not read.ok:
                raise self._ended(step, read.error or "ExtractionInvalid", read.message)
            return observation
        try:
            action = A.ACTION_ADAPTER.validate_python(arguments)
        except ValidationError as exc:
            raise self._fail(step, "BadRecipe", f"the recorded choice cannot be made: {exc}", arguments) from exc
        assert isinstance(action, A.Choose)
        chose, observation = await self.gatherer.choose(action, observation, step, arguments)
        if not chose.ok:
            raise self._ended(step, chose.error or "NoCandidate", chose.message)
        if not action.act:
            return observation
        self.found_by[Rung.DIRECT] = self.found_by.get(Rung.DIRECT, 0) + 1
        after = await self.camera.look(step, key=self._last_of_run(recorded))
        expected = scope.filled(recorded.expect.url_contains or "")
        if expected and not path_fits(expected, urlsplit(after.url).path or "/"):
            raise self._fail(step, "ExpectationFailed", f"after the choice the page is {after.url}; the recipe "
                             f"expects {expected}", arguments)
        return after

    def _last_of_run(self, recorded: RecipeAction) -> bool:
        """The run's last action: the look after it is the picture a replay and a report end on."""
        if not self.recipe.steps:
            return False
        step = self.recipe.steps[-1]
        return any(way and way[-1] is recorded for way in [step.actions, *(b.actions for b in step.branches)])

    async def _find(self, recorded: RecipeAction, position: int | None, step: int, observation: Observation,
                    arguments: dict[str, object], scope: Scope) -> tuple[Found | None, Observation]:
        """The element by the ladder. When no rung is sure: the model's patch (None: the recipe
        changed, run it from here again), else the person at a checkpoint — GO once they have put
        the page right (opened the menu, say) looks again; NOT GO or silence stops."""
        assert recorded.target is not None
        if scope.row is not None:
            renewed = await self._signed_in_again(step, observation, scope)
            return await self._in_row(recorded, step, arguments, renewed or observation, scope), renewed or observation
        healed = self._healed(position)
        found = await locate(scope.named(recorded.target), observation, self.operator, scope.named(healed),
                             scope.exact(recorded.target))
        if found is None:
            found, observation = await self._drawn_late(recorded, observation, scope, healed, step)
        renewed = await self._signed_in_again(step, observation, scope) if found is None else None
        if renewed is not None:
            observation = renewed
            found = await locate(scope.named(recorded.target), observation, self.operator, scope.named(healed),
                                 scope.exact(recorded.target))
        if found is None and await self._dismiss_seen(step, observation, scope, own=True):
            observation = await self.camera.look(step, seen=self.options.vision)
            found = await locate(scope.named(recorded.target), observation, self.operator, scope.named(healed),
                                 scope.exact(recorded.target))
        if found is not None:
            return found, observation
        if position is not None and await self._patch(recorded, position, step, observation):
            return None, observation
        if self.rerun.found and self.client is not None:  # the planner takes over, not the person
            raise self._fail(step, "TargetNotFound", f"no element on the page is surely {recorded.words()}", arguments)
        what = (f"recipe step {step}: no element on the page is surely {recorded.words()}. Put the page "
                "right and say GO to look again, or NOT GO to stop")
        if not await self.person.checkpoint(what, step):
            self._fail(step, "TargetNotFound", f"no element on the page is surely {recorded.words()}", arguments)
            raise finish(Status.CANCELLED, f"NOT GO at the checkpoint: step {step} could not surely find "
                                           f"{recorded.words()}")
        observation = await self.camera.look(step, seen=self.options.vision)
        found = await locate(scope.named(recorded.target), observation, self.operator,
                             scope.named(self._healed(position)), scope.exact(recorded.target))
        if found is None:
            raise self._fail(step, "TargetNotFound", f"no element on the page is surely {recorded.words()}", arguments)
        return found.model_copy(update={"rung": Rung.PERSON}), observation

    async def _drawn_late(self, recorded: RecipeAction, observation: Observation, scope: Scope,
                          healed: Evidence | None, step: int) -> tuple[Found | None, Observation]:
        """The element on a page still drawing (an app that renders what its socket brings, a list
        that loads): looked for again as the page changes, within the patience an expectation
        has, before any rung that goes past the page (a patch, the person)."""
        assert recorded.target is not None
        deadline = time.monotonic() + EXPECT_PATIENCE_S
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
            again = await self.camera.look(step, seen=self.options.vision)
            if again is observation:  # unchanged since: nothing new to look for it in
                continue
            observation = again
            found = await locate(scope.named(recorded.target), observation, self.operator, scope.named(healed),
                                 scope.exact(recorded.target))
            if found is not None:
                return found, observation
        return None, observation

    async def _patch(self, recorded: RecipeAction, position: int, step: int, observation: Observation) -> bool:
        """Asks the model for a patch and applies it; False when there is none to apply."""
        if self.patcher is None or self.patcher.spent:
            return False
        try:
            answer = await self.patcher.patch(position, recorded, "TargetNotFound", observation, step,
                                              await picture_of(observation, self.options.vision))
        except (AnswerError, ModelError):
            return False  # the checkpoint takes over, as when there is no model at all
        reshapes = any(op.op in ("insert_actions", "remove_step") for op in answer.ops)
        elsewhere = new_hosts(self.recipe, answer)
        # A patch is kept for every later rerun: one that sends the recipe to a site it never
        # visited is the person's call, --yes or not.
        if elsewhere or reshapes and not self.control.auto_approve:
            away = f" — it goes to {', '.join(elsewhere)}, where the recipe never went" if elsewhere else ""
            what = f"apply the model's patch to step {position} of recipe {self.recipe.name}{away}: {answer.reason}"
            if not await self.person.checkpoint(what, step):
                raise finish(Status.CANCELLED, f"NOT GO to the patch for step {position}")
        named = steps_named(self.recipe, answer)
        try:
            changed = await apply(self.recipe, answer, observation, self.operator)
        except PatchError as exc:
            self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_PATCH,
                              message=f"the model's patch could not be applied: {exc}")
            return False
        self.patches += changed
        self.patched_steps |= named
        self._patched = recorded
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_PATCH,
                          message=f"patched: {'; '.join(changed)} ({answer.reason})")
        return True

    async def _dismiss_seen(self, step: int, observation: Observation, scope: Scope, own: bool = False) -> bool:
        """A banner or dialog that this recording never met, but another recipe on this site
        dismissed: dismissed the same way, through the same gates, with no model. `own`: this
        recipe's own interstitials first (one that came after the look its optional step read)."""
        mine = [scope.named(a.target) for a in self.recipe.every_action if a.optional and a.target] if own else []
        for seen in [*mine, *self.rerun.interstitials]:
            index = await strictly(seen, observation, self.operator)
            if index is None:
                continue
            arguments: dict[str, object] = {"name": "click", "index": index}
            element = observation.elements.get(index)
            acted = await self.hands.act(A.Click(index=index), observation, step, arguments,
                                         {"role": element.role, "name": element.name} if element else None,
                                         bad_secret="BadRecipe", resolved_by=Rung.MEMORY)
            if acted.ok:
                why = "it came late" if seen in mine else "not in this recipe, seen before on this site"
                self.emitter.emit(EventType.POLICY, Actor.SYSTEM, step, policy=PolicyName.RECIPE_OPTIONAL,
                                  message=f"dismissed {seen.role} {seen.name!r} ({seen.overlay}): {why}")
                return True
        return False

    def _healed(self, position: int | None) -> Evidence | None:
        """Healing memory for the recorded way's action at `position`, while no patch moved the places."""
        return None if self.patches or position is None else self.rerun.healed.get(position)

    async def _absent(self, recorded: RecipeAction, position: int | None, observation: Observation,
                      scope: Scope) -> bool:
        """Nothing on the page is, or looks like, the optional action's element: the interstitial
        it dismissed did not come. One that came changed is healed as any other element is."""
        if recorded.target is None:
            return False
        target = scope.named(recorded.target)
        found = await locate(target, observation, self.operator, scope.named(self._healed(position)),
                             scope.exact(recorded.target))
        return found is None and not anything_alike(target, observation)

    # -- the steps that are not one straight line -----------------------------------------------

    async def _step(self, step: RecipeStep, number: int, observation: Observation, scope: Scope,
                    recorded: bool) -> Observation:
        """One step: its block, its loop, the way its condition picks, or its recorded actions.
        `recorded`: a step of the recipe itself, whose actions patches and healing memory number."""
        if step.block is not None:
            return await self._block(step.block, number, observation, scope)
        if step.for_each is not None:
            return await self._loop(step, step.for_each, number, observation, scope)
        done = 0
        branch = await self._branch(step, number, observation, scope, done)
        while branch is None and done < len(step.actions):
            position = sum(len(s.actions) for s in self.recipe.steps[:number - 1]) + done + 1 if recorded else None
            observation, again = await self._act(step.actions[done], position, number, observation, scope)
            done += 0 if again else 1  # a patch changed the recipe here: run what stands here now
            if not again and done < len(step.actions):
                branch = await self._branch(step, number, observation, scope, done)
        for action in branch.actions if branch is not None else []:
            # Another way's actions have no place in the numbering patches and memory use.
            try:
                observation, _ = await self._act(action, None, number, observation, scope)
            except Finish:
                if recorded and branch is not None:  # a way that fails where its condition held misleads every rerun
                    self.failed_ways.append((number, branch))
                raise
        return observation

    async def _loop(self, step: RecipeStep, loop: Loop, number: int, observation: Observation,
                    scope: Scope) -> Observation:
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
        for n, record in enumerate(records):
            row = self.gatherer.row(loop.over, n)
            if row is None:
                raise self._ended(number, "BadRecipe", f"{loop.over} was not read from rows on the page: "
                                                       "a loop finds each pass's elements in its row")
            inside = scope.pass_over(row, record_values(record))
            said = ", ".join(f"{key} {value}" for key, value in list(record_values(record).items())[:2])
            description = f"{scope.filled(step.description)} — pass {n + 1} of {len(records)}" + (
                f" ({said.replace('each_', '')})" if said else "")
            self.emitter.emit(EventType.STEP_START, Actor.PLANNER, number, index=number, description=description)
            for action in loop.actions:
                observation, _ = await self._act(action, None, number, observation, inside)
            self.emitter.emit(EventType.STEP_OK, Actor.VALIDATOR, number, index=number, description=description,
                              reason="as recorded, in its row")
        return observation

    async def _in_row(self, recorded: RecipeAction, step: int, arguments: dict[str, object],
                      observation: Observation, scope: Scope) -> Found:
        """A pass's element: the one in its record's row with the recorded role and name (today's
        record's values in it); never a look-alike, never one of another row."""
        assert recorded.target is not None and scope.row is not None
        target = scope.named(recorded.target)
        wanted = " ".join(target.name.split()).casefold()
        shown = observation.elements
        hits = [index for index in await self.operator.items(*scope.row) if index in shown
                and shown[index].role == target.role and " ".join(shown[index].name.split()).casefold() == wanted]
        if len(hits) != 1:
            how = "no" if not hits else f"{len(hits)} elements like"
            raise self._fail(step, "TargetNotFound", f"this pass's row holds {how} {target.role} {target.name!r}",
                             arguments)
        return Found(index=hits[0], rung=Rung.ROW)

    async def _block(self, block: Block, number: int, observation: Observation, scope: Scope) -> Observation:
        """Another recipe's steps, run as this step with its variables bound in this one's words."""
        recipe = self.rerun.blocks.get(block.key())
        if recipe is None:
            raise self._ended(number, "BadRecipe", f"block {block.recipe} was not read before the rerun started")
        values = {name: scope.filled(block.values[name]) if name in block.values else scope.values.get(name, "")
                  for name in recipe.variables}
        bound = "".join(f", {name} = {value}" for name, value in values.items())
        self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_BLOCK,
                          message=f"step {number} runs block {recipe.name} v{recipe.version}{bound}")
        return await self._inside(recipe, number, observation, scope.block_of(recipe.name, values))

    async def _inside(self, recipe: Recipe, number: int, observation: Observation, scope: Scope) -> Observation:
        """`recipe`'s steps as part of step `number`, in their own `scope`."""
        for step in recipe.steps:
            observation = await self._step(step, number, observation, scope, recorded=False)
        return observation

    async def _signed_in_again(self, number: int, observation: Observation, scope: Scope) -> Observation | None:
        """A page that asks to sign in where the recipe expected the app (a session that expired
        in a kept profile): the site's sign-in recipe runs, with no model, and the rerun carries
        on from the page it leaves. With none, a checkpoint says so. None: the page asks nothing."""
        if scope.signing_in or self.sign_ins >= MAX_SIGN_INS or not asks_to_sign_in(observation):
            return None
        self.sign_ins += 1
        login = await self._sign_in_here(observation, scope)
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
        # The sign-in's own scope: its values, and none of a loop pass's row it may have come in.
        return await self._inside(login, number, observation,
                                  scope.sign_in({name: scope.values.get(name, "") for name in login.variables}))

    async def _sign_in_here(self, observation: Observation, scope: Scope) -> Recipe | None:
        """The first sign-in recipe whose first element is surely on this page: the wall it was
        recorded on, not another app's of the same site."""
        for login in self.rerun.sign_ins:
            first = next((action.target for action in login.every_action if action.target is not None), None)
            if first is not None and await locate(scope.named(first), observation, self.operator) is not None:
                return login
        return None

    async def _branch(self, step: RecipeStep, number: int, observation: Observation, scope: Scope,
                      done: int) -> Branch | None:
        """The first of the step's other ways that part from the recorded one after its first `done`
        actions and whose condition holds on the page now; None: the recorded way (when none holds,
        or the step has no other)."""
        for n, branch in enumerate(step.branches, 2):
            if branch.after == done and await self._condition_holds(branch.when, observation, scope):
                self.emitter.emit(EventType.POLICY, Actor.SYSTEM, number, policy=PolicyName.RECIPE_BRANCH,
                                  message=f"step {number} done its way {n}: {scope.filled(branch.when.words())}")
                return branch
        return None

    async def _condition_holds(self, when: When, observation: Observation, scope: Scope) -> bool:
        if when.url_contains and not path_fits(scope.filled(when.url_contains), urlsplit(observation.url).path or "/"):
            return False
        if when.text and not shows(observation, scope.filled(when.text)):
            return False
        named = scope.named(when.element) if when.element is not None else None
        return named is None or present(named, observation) or await strictly(named, observation, self.operator) is not None


def _how(found_by: dict[Rung, int], skipped: int = 0, kept: int = 0) -> str:
    """"as recorded", or what it took: "with 2 elements found again (refind 1, memory 1)"; the
    optional actions left out because what they dismissed did not come; the toggles that already
    held their state."""
    again = {rung.value: count for rung, count in found_by.items() if count and not rung.as_recorded}
    how = "as recorded"
    if again:
        rungs = ", ".join(f"{rung} {count}" for rung, count in sorted(again.items()))
        total = sum(again.values())
        how = f"with {total} element{'s' if total > 1 else ''} found again ({rungs})"
    if skipped:
        how += f", {skipped} optional action{'s' if skipped > 1 else ''} not needed"
    if kept:
        how += f", {kept} setting{'s' if kept > 1 else ''} already as the recipe sets {'them' if kept > 1 else 'it'}"
    return how

"""The Navigator: carries out one step with real actions, knowing the step but not the goal.

Its context lives only for the step: a fresh list of what it did, dropped when the step ends.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from goalbot import actions as A
from goalbot import defaults as D
from goalbot.actions import Action, Outcome
from goalbot.agents.acting import Ended, Hands
from goalbot.agents.gathering import Gathered, Gatherer, Reading
from goalbot.agents.context import bullet_list, geometry_of, recent, untrusted_page, with_picture
from goalbot.agents.observing import Camera, picture_of
from goalbot.agents.person import Person
from goalbot.agents.planned_actions import still_fitting
from goalbot.agents.secrets import HIDDEN, REFERENCE, Secrets
from goalbot.events import Actor, EventType
from goalbot.llm.answers import ActionsAnswer
from goalbot.llm.coordinates import Convention
from goalbot.llm.dialects import Dialect
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.extraction import SchemaError
from goalbot.llm.parsing import AnswerError
from goalbot.llm.vision import user_message
from goalbot.operators.base import Observation, Operator


# Words of a step that reads or picks rather than only acts; offering the data tools to a step
# that needs none costs every request a fifth more characters.
DATA_WORDS = re.compile(
    r"\b(extract|read|list|collect|gather|copy|note|record|report|compare|choose|pick|cheapest|priciest|"
    r"most|least|best|price|prices|cost|data|table|rows?|how (many|much)|what|which|find out|look up)\b",
    re.IGNORECASE)


class StepReport(BaseModel):
    success: bool
    summary: str
    # The turns ran out without a `finished`: the last actions may still have done the step, so
    # the Validator judges it from the page rather than the step being counted failed unseen.
    out_of_turns: bool = False
    done: list[str] = Field(default_factory=list)
    observation: Observation


async def _shown(action: Action, operator: Operator, secrets: Secrets) -> dict[str, object]:
    """The action as events show it: text typed into a password field never leaves the process.

    Asked of the page right before typing, since an earlier action of the same answer may have
    moved the focus.
    """
    shown = {"name": action.name, **action.model_dump(exclude_defaults=True)}
    # A reference (<secret:PW>) is no value: kept, it lets a recipe type the secret again.
    only_references = isinstance(action, A.Type) and not REFERENCE.sub("", action.text) and action.text
    if isinstance(action, A.Type) and not only_references and await operator.is_secret_field(action.index):
        shown["text"] = HIDDEN
        secrets.learn(action.text)
    return shown


async def target_of(action: Action, observation: Observation, operator: Operator) -> dict[str, object] | None:
    """What identifies the element `action` acts on, read before it acts: a recipe made from this
    session finds the element again by it."""
    index = getattr(action, "index", None)
    element = observation.elements.get(index) if isinstance(index, int) else None
    if element is None:
        return None
    return {"role": element.role, "name": element.name, "box": element.box, "states": element.states,
            **await operator.evidence(element.index)}


def _describe(shown: dict[str, object]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in shown.items() if k != "name")
    return f"{shown['name']}({args})"


class TooManyFailures(Exception):
    """`--max-failures` actions failed in a row."""


class NavigatorSettings(BaseModel):
    max_turns: int = Field(6, ge=1, description="Model answers per step.")
    max_actions: int = Field(D.MAX_ACTIONS_PER_STEP, ge=1, description="Actions run from one answer.")
    max_failures: int = Field(D.MAX_FAILURES, ge=1, description="Failed actions in a row before the run stops.")
    vision: bool = Field(False, description="Send the screenshot with each question.")
    coords: Convention | None = Field(None, description="How the model writes coordinates; its dialect's if None.")


class Navigator:
    def __init__(
        self, dialogue: Dialogue, operator: Operator, camera: Camera, hands: Hands, person: Person,
        gatherer: Gatherer, saved_data: dict[str, str], settings: NavigatorSettings | None = None,
    ) -> None:
        self.dialogue = dialogue
        self.operator = operator
        self.camera = camera
        self.emitter = camera.emitter
        self.hands = hands
        self.gatherer = gatherer
        self.person = person
        self.secrets = person.secrets
        self.saved_data = saved_data
        self.settings = settings or NavigatorSettings()
        self.failures_in_a_row = 0

    def _sees(self) -> bool:
        """Whether the model is shown the screen: `--vision`, or a UI-TARS model, which points at
        pixels and has nothing to point at without them."""
        return self.settings.vision or self.dialogue.dialects.current("navigator") is Dialect.UITARS

    def _has_data(self, description: str) -> bool:
        """Whether `extract` and `choose` are offered: the run has schemas, policies or data kept,
        or the step's words ask to read something off the page."""
        g = self.gatherer
        return bool(g.schemas or g.policies or g.kept or DATA_WORDS.search(description))

    async def _answer(
        self, description: str, done: list[str], observation: Observation, step: int
    ) -> list[Action]:
        dialects = self.dialogue.dialects
        picture = await picture_of(observation, self._sees())
        answer = ActionsAnswer(geometry_of(observation, picture), dialects.convention("navigator", self.settings.coords),
                               vision=picture is not None, data=self._has_data(description))

        def compose(level: int) -> list[dict[str, object]]:
            return [user_message(self._brief(description, done, observation, level),
                                 with_picture(picture, level))]

        return await self.dialogue.ask("navigator", compose, answer, step)

    async def run_step(self, description: str, step: int, observation: Observation,
                       first: list[Action] | None = None, turns: int | None = None) -> StepReport:
        """Carries the step out in at most `turns` answers (the settings' by default); `first`:
        the planner's actions for it, given on `observation`, run as the first answer while the
        page is still the one they were given on."""
        turns = turns or self.settings.max_turns
        done: list[str] = []
        # One look: the planner's may lack the picture this model needs, and the page may have
        # changed while the plan waited for approval (then the planner's actions are dropped,
        # unless what changed is none of what they point at).
        if first or (self._sees() and observation.screenshot is None):
            now = await self.camera.look(step, seen=self._sees())
            if first:
                first = still_fitting(first, observation, now)
            observation = now
        for _turn in range(turns):
            await self.person.pause_point(step)
            try:
                if first:
                    actions, first = first, None
                    done.append("(the planner's actions for this step, given with the plan)")
                else:
                    actions = await self._answer(description, done, observation, step)
            except AnswerError as exc:
                self.emitter.emit(
                    EventType.ACT_FAIL, Actor.NAVIGATOR, step,
                    action={}, message=f"the navigator's answer could not be used: {exc}",
                    error="BadAnswer",
                )
                return StepReport(success=False, summary=f"unusable model answer: {exc}", done=done,
                                  observation=observation)
            if len(actions) > self.settings.max_actions:
                dropped = len(actions) - self.settings.max_actions
                actions = actions[:self.settings.max_actions]
                done.append(f"(only the first {len(actions)} actions of that answer ran; {dropped} "
                            f"left out: --max-actions-per-step is {self.settings.max_actions})")
            finished = await self._run_batch(actions, observation, done, step)
            if finished is not None:
                return StepReport(
                    success=finished.success, summary=finished.summary, done=done,
                    # what the Validator judges the step on: kept for the replay and the report (a
                    # look at a page unchanged since the last is that look, at no cost)
                    observation=await self.camera.look(step, key=True, seen=self._sees()),
                )
            observation = await self.camera.look(step, seen=self._sees())
            done.append(f"(the page now: {observation.summary()})")
        return StepReport(
            success=False, done=done, observation=observation, out_of_turns=True,
            summary=f"the navigator used its {turns} turns without saying the step was finished",
        )

    async def _run_batch(
        self, actions: list[Action], observation: Observation, done: list[str], step: int
    ) -> A.Finished | None:
        """Runs one answer's actions in order, until one fails or the page changes under the rest."""
        for position, action in enumerate(actions):
            if isinstance(action, A.Finished):
                self.emitter.emit(
                    EventType.ACT_OK, Actor.NAVIGATOR, step,
                    action=await _shown(action, self.operator, self.secrets), message=action.summary,
                )
                return action
            await self.person.pause_point(step)
            shown = await _shown(action, self.operator, self.secrets)
            if isinstance(action, (A.SaveData, A.CallUser)):  # nothing happens to the page
                done.append(await self._note(action, shown, step))
                continue
            if isinstance(action, (A.Extract, A.Choose)):
                gathered = await self._gather(action, observation, step, shown)
                done.append(f"{_describe(shown)} -> {'ok' if gathered.ok else f'FAILED ({gathered.error})'}: "
                            f"{gathered.message}")
                self._count(gathered.ok)
                if not gathered.ok or isinstance(action, A.Choose) and action.act:
                    return None  # a click may have changed the page: look again
                continue
            acted = await self.hands.act(action, observation, step, shown,
                                         await target_of(action, observation, self.operator))
            if acted.ended is Ended.REFUSED:
                done.append(f"{_describe(shown)} -> REFUSED: {acted.message}")
                return None  # a refusal is the guard working, not an error of the page
            status = "ok" if acted.ok else f"FAILED ({acted.error})"
            done.append(f"{_describe(shown)} -> {status}: {acted.message}")
            self._count(acted.ok)
            if not acted.ok:
                return None  # the page is not what the rest of the batch assumed
            left = len(actions) - position - 1
            before, after = acted.before, acted.after
            if left and (not after or after != before) and not isinstance(actions[position + 1], A.Finished):
                done.append(f"(the page changed; the {left} remaining actions of that answer were not run, "
                            "look at the page again)")
                return None
        return None

    async def _gather(self, action: A.Extract | A.Choose, observation: Observation, step: int,
                      shown: dict[str, object]) -> Gathered:
        if isinstance(action, A.Choose):
            return (await self.gatherer.choose(action, observation, step, shown))[0]
        try:
            schema = self.gatherer.schema_for(action.schema_)
        except SchemaError as exc:
            self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown, target=None)
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown, message=str(exc),
                              error="BadAnswer")
            return Gathered(ok=False, error="BadAnswer", message=str(exc))
        reading = Reading(instruction=action.instruction, schema_=schema, scope=action.scope)
        return await self.gatherer.extract(action.key, reading, observation, step, shown)

    def _count(self, ok: bool) -> None:
        self.failures_in_a_row = 0 if ok else self.failures_in_a_row + 1
        if self.failures_in_a_row >= self.settings.max_failures:
            raise TooManyFailures(f"{self.failures_in_a_row} actions failed in a row (--max-failures)")

    async def _note(self, action: A.SaveData | A.CallUser, shown: dict[str, object], step: int) -> str:
        """An action that touches no page: data kept for the run, or a question to the person."""
        self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown, target=None)
        if isinstance(action, A.CallUser):
            return (await self._call_user(action, shown, step))[1]
        self.saved_data[action.key] = action.value
        self.emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, step, action=shown, message=f"saved {action.key}")
        return f"{_describe(shown)} -> saved"

    async def _call_user(self, action: A.CallUser, shown: dict[str, object], step: int) -> tuple[bool, str]:
        answer = await self.person.answer(action.question, step)
        if answer is None:
            message = "nobody answered; go on without the answer, or finish the step unsuccessfully"
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown,
                              message=message, error=Outcome.UNSUPPORTED.value)
            return False, f"call_user -> {message}"
        message = f"the person answered: {answer}"
        self.emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, step, action=shown, message=message)
        return True, f"{_describe(shown)} -> {message}"

    def _brief(self, description: str, done: list[str], observation: Observation, level: int) -> str:
        # Only the newest page is shown in full; the ones before it live on as one-line summaries.
        parts = [f"Your step: {description}"]
        if self.secrets.names():
            references = ", ".join(f"<secret:{name}>" for name in self.secrets.names())
            parts.append(f"Secrets you can type, written exactly like this (you never see their values): "
                         f"{references}")
        if self.gatherer.schemas:
            parts.append("Schemas `extract` may name: " + ", ".join(self.gatherer.schemas))
        if self.gatherer.policies:
            parts.append("Choice policies `choose` may name:\n" + bullet_list(
                [f"{name}: {policy.words()}" for name, policy in self.gatherer.policies.items()]))
        if self.gatherer.kept:
            parts.append("Data kept so far: " + ", ".join(self.gatherer.kept))
        parts += ["Actions so far in this step:\n" + bullet_list(recent(done, level)),
                  untrusted_page(observation, level)]
        return "\n\n".join(parts)

"""A recipe made from a session that reached its goal: every action that worked, in order, under
the step it served, with the evidence of its element, what it changed and the page it started on.
`--var K=V` turns V, in each form a page writes it, into {{K}} wherever it was: typed text, chosen
options, addresses, element evidence and expectations (see `variables`)."""

from __future__ import annotations

import json
import re
from typing import Literal
from urllib.parse import urlsplit

from goalbot.agents.secrets import HIDDEN, REFERENCE
from goalbot.events import Event, EventType
from goalbot.agents.choosing import Policy, policies_of
from goalbot.payloads import (
    ActionData, ExtractedData, ObservationData, PlanDecisionData, ShownAction, StepData, TaskStartData,
)
from goalbot.operators.json_places import NetworkPlace
from goalbot.recipes.expecting import WILD
from goalbot.recipes.model import NAME, Evidence, Fingerprint, Recipe, RecipeAction, RecipeStep, Recorded
from goalbot.recipes.variables import VARIABLE, each_text, loosen, names_in, template

# Actions that change nothing a rerun could repeat, or need the model or a person to mean anything.
NOT_REPLAYED = frozenset({"finished", "call_user", "save_data"})
# A number as a whole: the 4 of "/user/4/", "#4" or "4_a", never the 2 of "v2" nor of ":8002".
WHOLE_NUMBER = re.compile(r"(?<![^\W_])\d+(?![^\W_])")


class RecipeError(Exception):
    """The recipe cannot be made, read or run; the message says why, for the person."""


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path or "/"


def build(name: str, events: list[Event], variables: dict[str, str]) -> Recipe:
    """The recipe `name` from a finished session's events; RecipeError when it did not succeed."""
    if not NAME.fullmatch(name):
        raise RecipeError(f"bad recipe name {name!r}: use letters, digits, '.', '_' or '-' (64 at most)")
    if not events or events[0].type is not EventType.TASK_START:
        raise RecipeError("the session has no start: nothing to make a recipe of")
    if events[-1].type is not EventType.TASK_OK:
        raise RecipeError("only a session that reached its goal makes a recipe; this one ended "
                          f"{events[-1].type.value}")
    start = events[0].data_of(TaskStartData)
    steps: dict[int, RecipeStep] = {}
    page, title, announced = start.url or "", "", list[str]()
    varying: dict[str, str] = {}  # pages reached through a value in a form not seen → their folder
    # The numbers the run made (a new object's id, in the address it was sent to): never the
    # recipe's, since a rerun makes others; and what the person gave, whose numbers are not.
    made, given = _Made(), [start.goal, *variables.values()]
    acting: tuple[Event, RecipeAction] | None = None  # started, not yet done
    done: RecipeAction | None = None  # done, and the look that shows what it changed is still to come
    # Done and looked at once: a later look before the next action may still show what it made the
    # page announce (an answer over a websocket that came after the first look).
    answered: tuple[RecipeAction, str, list[str], str] | None = None
    rules = _DataRules(start.options)
    read: dict[str, ExtractedData] = {}  # the latest reading of each key
    for event in events:
        if event.type in (EventType.ACT_START, EventType.STEP_START):
            answered = None
        match event.type, event.payload:
            case EventType.EXTRACTED, ExtractedData() as extracted if extracted.valid:
                read[extracted.key] = extracted
                given.append(json.dumps(extracted.data, ensure_ascii=False))  # read off a page: not the run's own
            case EventType.PLAN_APPROVED, PlanDecisionData() as approved if approved.policies:
                rules.policies.update(policies_of(approved.policies))
            # The click a `choose` made is the choice's own: a rerun makes it by today's pick.
            case EventType.ACT_START, ActionData() as started if started.action.arg("chosen"):
                acting = None
            case EventType.OBSERVATION, ObservationData() as look:
                if done is not None:  # the first look after an action: what it changed
                    seen = " ".join([page, title, *announced, *given])
                    _expect_from(done, look.url, announced, look.announced, variables, varying, made.noting(seen))
                    answered, done = (done, look.url, announced, seen), None
                elif answered is not None and answered[1] == look.url:
                    action, _, before, seen = answered
                    _announced_later(action, before, look.announced, variables, made.noting(seen))
                page, title, announced = look.url, look.title, look.announced
            case EventType.STEP_START, StepData() as step:
                steps.setdefault(event.step or 0, RecipeStep(description=template(step.description, variables)))
            case EventType.ACT_START, ActionData() as started if started.action.name not in NOT_REPLAYED:
                acting = (event, _action(started, varying.get(_path(page)) or made.wild(template(_path(page), variables)),
                                         made.wild(title), variables))
                given.append(_given_by(started))
            # Each start is kept once, at its own end: `finished` ends a step with an ACT_OK of its own
            # and no start, and must not keep the action before it a second time.
            case EventType.ACT_OK, ActionData() as ended if (
                    acting is not None and acting[0].step == event.step
                    and ended.action.name == acting[0].data_of(ActionData).action.name):
                rules.record(acting[1], acting[0].data_of(ActionData).action, read)
                done, acting = acting[1], None
                steps.setdefault(event.step or 0, RecipeStep(description="")).actions.append(done)
                done.expect.element_gone = ended.gone
                done.expect.download = bool(ended.files)
                if done.action.name == "type":
                    done.expect.value = str(done.action.arg("text", ""))
            case EventType.ACT_FAIL, _:
                acting = None
    kept = [step for step in steps.values() if step.actions]
    for action in (action for step in kept for action in step.actions):
        action.optional = _dismissed_an_interstitial(action)
    result = rules.result(start.goal, read.get("result"))
    if not kept and result is not None:
        # A run that only read its answer (a report every morning): its rerun opens the page and
        # reads it again, at the places the reading kept.
        first = next(iter(steps.values()), None)
        kept = [RecipeStep(description=first.description if first and first.description else template(
            start.goal, variables))]
    if not kept:
        raise RecipeError("the session did nothing a rerun could repeat")
    recipe = Recipe(name=name, goal=template(start.goal, variables), start_url=template(start.url or "", variables),
                    steps=kept, variables=sorted(variables), source_session=events[0].session_id,
                    policies=rules.used, result=result)
    texts = " ".join(str(action.action.arg("text", "")) for action in recipe.actions)
    recipe.secrets = sorted(set(REFERENCE.findall(texts)))
    return recipe


def _action(started: ActionData, page_path: str, title: str, variables: dict[str, str]) -> RecipeAction:
    # What a model wrote inline (a schema, a policy) is kept beside the action, not in its arguments.
    shown = {key: value for key, value in started.action.without("index", "to_index", "scope").model_dump().items()
             if not isinstance(value, dict)}
    for key in ("text", "option", "url"):
        if isinstance(shown.get(key), str):
            shown[key] = template(str(shown[key]), variables)
    if shown.get("text") == HIDDEN:
        # A password typed by the model in the clear was never stored: the rerun asks for it.
        shown["text"] = "<secret:password>"
    target = None
    if started.target:
        target = each_text(Evidence.model_validate(started.target), lambda text: template(text, variables))
    recorded = RecipeAction(action=shown, target=target,
                            fingerprint=Fingerprint(url_contains=page_path, title=template(title, variables)))
    recorded.expect.state = state_set(started)
    return recorded


# A click on these sets a state, and the state is what the person wanted: "turn on dark mode".
TOGGLES = frozenset({"checkbox", "switch", "menuitemcheckbox"})
CHOICES = frozenset({"radio", "menuitemradio"})


def state_set(started: ActionData) -> Literal["checked", "unchecked"] | None:
    """The state a click on a toggle or a radio left it in, from the state the look before it
    showed: a rerun keeps that state rather than clicking it again."""
    if started.action.name != "click" or not started.target:
        return None
    role, states = started.target.get("role"), started.target.get("states") or []
    if role in CHOICES:
        return "checked"
    if role in TOGGLES and ("checked" in states or "unchecked" in states):
        return "unchecked" if "checked" in states else "checked"
    return None


def _given_by(started: ActionData) -> str:
    """What an action brought to the page: what it typed or chose, and the words of its element
    (not the element's place: `nth-of-type(4)` says nothing of an id 4)."""
    target = started.target or {}
    words = [str(target.get(key, "")) for key in ("name", "label", "placeholder", "nearby")]
    return " ".join([json.dumps(started.action.without("index", "to_index").model_dump(), ensure_ascii=False), *words])


def _dismissed_an_interstitial(action: RecipeAction) -> bool:
    """A click in a dialog or a cookie banner that made its element go away, the address unchanged:
    what a page puts in the way (consent, "what's new"), which a later visit may not show."""
    target = action.target
    return (action.action.name == "click" and target is not None and bool(target.overlay)
            and action.expect.element_gone and action.expect.url_contains is None)


def _expect_from(action: RecipeAction, url_after: str, announced_before: list[str], announced_after: list[str],
                 variables: dict[str, str], varying: dict[str, str], made: _Made) -> None:
    """What the action changed, as a rerun is to check it. The address first: a number in it that
    the run made is WILD there and in every text after."""
    path = made.wild(template(_path(url_after), variables), new=True, mint=True)
    if path != action.fingerprint.url_contains:
        used = names_in(" ".join(str(v) for v in action.action.args().values())
                        + (action.target.name if action.target else ""))
        if used and not names_in(path):  # the value may be in this address in a form not seen
            varying[_path(url_after)] = path = loosen(path)
        action.expect.url_contains = path
    action.expect.text_appeared = [made.wild(template(text, variables), new=True) for text in announced_after
                                   if text not in announced_before]


def _announced_later(action: RecipeAction, before: list[str], announced: list[str], variables: dict[str, str],
                     made: _Made) -> None:
    """Adds to what `action` is to make the page announce what a later look of the same page showed
    first, before any other action: nothing else on the page was done in between."""
    for text in announced:
        later = made.wild(template(text, variables), new=True)
        if text not in before and later not in action.expect.text_appeared:
            action.expect.text_appeared.append(later)


class _Made:
    """The numbers a recorded run made: an id that was on no page before the action that led to
    it, nor in anything the person gave (the goal, a --var, what was typed). A rerun makes another,
    so a recipe keeps each as WILD, wherever it turns up later (the next page's address)."""

    def __init__(self) -> None:
        self.numbers: set[str] = set()
        self._seen: set[str] = set()

    def noting(self, seen: str) -> _Made:
        """Self, knowing the numbers of `seen` (the page before an action, what was given) as not new."""
        self._seen = set(WHOLE_NUMBER.findall(seen))
        return self

    def wild(self, text: str, new: bool = False, mint: bool = False) -> str:
        """`text` with the numbers the run made as WILD; with `new`, any number not seen too; with
        `mint`, those are the run's from now on (an address: the object it was sent to). A number
        in an announcement only ("saved at 12:03") says nothing of the addresses after it."""
        def number(match: re.Match[str]) -> str:
            found = match.group(0)
            fresh = new and found not in self._seen
            if fresh and mint:
                self.numbers.add(found)
            return WILD if fresh or found in self.numbers else found

        # A {{variable}} is the person's value, checked as it is: nothing inside it goes wild.
        pieces, at = list[str](), 0
        for match in VARIABLE.finditer(text):
            pieces += [WHOLE_NUMBER.sub(number, text[at:match.start()]), match.group(0)]
            at = match.end()
        return "".join([*pieces, WHOLE_NUMBER.sub(number, text[at:])])


class _DataRules:
    """The schemas and policies a run was given (its TASK_START options), and those of them its
    `extract` and `choose` actions used: a recipe keeps each with the action that used it."""

    def __init__(self, options: dict[str, object]) -> None:
        schemas, policies = options.get("schemas"), options.get("choice_policies")
        self.schemas = schemas if isinstance(schemas, dict) else {}
        self.policies = policies_of(policies) if isinstance(policies, dict) else {}
        output = options.get("output_schema")
        self.output_schema = output if isinstance(output, dict) else None
        self.used: dict[str, Policy] = {}

    def record(self, action: RecipeAction, shown: ShownAction, read: dict[str, ExtractedData]) -> None:
        """Keeps with `action` what its `shown` arguments named or wrote inline."""
        if shown.name == "extract":
            key, schema = str(shown.arg("key", "")), shown.arg("schema", "")
            if not isinstance(schema, dict):
                schema = self.schemas.get(schema) if schema else next(iter(self.schemas.values()), None)
            action.action = action.action.without("schema")
            if key in read and isinstance(schema, dict):
                action.reads = Recorded(instruction=str(shown.arg("instruction", "")), schema_=schema,
                                        place=read[key].place, network=_network(read[key]))
        elif shown.name == "choose":
            policy = shown.arg("policy")
            if isinstance(policy, dict):  # written inline: kept under a name of its own
                name = f"{str(shown.arg('from', 'choice')).split('.')[0]}-choice"
                self.used[name] = policies_of({name: policy})[name]
                action.action = ShownAction(**{**action.action.model_dump(), "policy": name})
            elif isinstance(policy, str) and policy in self.policies:
                self.used[policy] = self.policies[policy]

    def result(self, goal: str, read: ExtractedData | None) -> Recorded | None:
        if self.output_schema is None or read is None:
            return None
        return Recorded(instruction=goal, schema_=self.output_schema, place=read.place, network=_network(read))


def _network(read: ExtractedData) -> NetworkPlace | None:
    return NetworkPlace.model_validate(read.network) if read.network else None

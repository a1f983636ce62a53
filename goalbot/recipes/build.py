"""A recipe made from a session that reached its goal: every action that worked, in order, under
the step it served, with the evidence of its element, what it changed and the page it started on.
`--var K=V` turns V, in each form a page writes it, into {{K}} wherever it was: typed text, chosen
options, addresses, element evidence and expectations (see `variables`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from goalbot.agents.secrets import HIDDEN, REFERENCE
from goalbot.events import Event, EventType
from goalbot.agents.choosing import Policy, policies_of
from goalbot.payloads import (
    ActionData, ExtractedData, ObservationData, PlanDecisionData, ShownAction, StepData, TaskStartData,
)
from goalbot.operators.json_places import NetworkPlace
from goalbot.recipes.model import NAME, Evidence, Fingerprint, Recipe, RecipeAction, RecipeStep, Recorded
from goalbot.recipes.variables import each_text, loosen, names_in, template

# Actions that change nothing a rerun could repeat, or need the model or a person to mean anything.
NOT_REPLAYED = frozenset({"finished", "call_user", "save_data"})


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
    acting: tuple[Event, RecipeAction] | None = None  # started, not yet done
    done: RecipeAction | None = None  # done, and the look that shows what it changed is still to come
    rules = _DataRules(start.options)
    read: dict[str, ExtractedData] = {}  # the latest reading of each key
    for event in events:
        match event.type, event.payload:
            case EventType.EXTRACTED, ExtractedData() as extracted if extracted.valid:
                read[extracted.key] = extracted
            case EventType.PLAN_APPROVED, PlanDecisionData() as approved if approved.policies:
                rules.policies.update(policies_of(approved.policies))
            # The click a `choose` made is the choice's own: a rerun makes it by today's pick.
            case EventType.ACT_START, ActionData() as started if started.action.arg("chosen"):
                acting = None
            case EventType.OBSERVATION, ObservationData() as look:
                if done is not None:  # the first look after an action: what it changed
                    _expect_from(done, look.url, announced, look.announced, variables, varying)
                    done = None
                page, title, announced = look.url, look.title, look.announced
            case EventType.STEP_START, StepData() as step:
                steps.setdefault(event.step or 0, RecipeStep(description=template(step.description, variables)))
            case EventType.ACT_START, ActionData() as started if started.action.name not in NOT_REPLAYED:
                acting = (event, _action(started, varying.get(_path(page)) or template(_path(page), variables),
                                         title, variables))
            # Each start is kept once, at its own end: `finished` ends a step with an ACT_OK of its own
            # and no start, and must not keep the action before it a second time.
            case EventType.ACT_OK, ActionData() as ended if (
                    acting is not None and acting[0].step == event.step
                    and ended.action.name == acting[0].data_of(ActionData).action.name):
                rules.record(acting[1], acting[0].data_of(ActionData).action, read)
                done, acting = acting[1], None
                steps.setdefault(event.step or 0, RecipeStep(description="")).actions.append(done)
                done.expect.element_gone = ended.gone
                if done.action.name == "type":
                    done.expect.value = str(done.action.arg("text", ""))
            case EventType.ACT_FAIL, _:
                acting = None
    kept = [step for step in steps.values() if step.actions]
    for action in (action for step in kept for action in step.actions):
        action.optional = _dismissed_an_interstitial(action)
    if not kept:
        raise RecipeError("the session did nothing a rerun could repeat")
    recipe = Recipe(name=name, goal=template(start.goal, variables), start_url=template(start.url or "", variables),
                    steps=kept, variables=sorted(variables), source_session=events[0].session_id,
                    policies=rules.used, result=rules.result(start.goal, read.get("result")))
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
    return RecipeAction(action=shown, target=target,
                        fingerprint=Fingerprint(url_contains=page_path, title=template(title, variables)))


def _dismissed_an_interstitial(action: RecipeAction) -> bool:
    """A click in a dialog or a cookie banner that made its element go away, the address unchanged:
    what a page puts in the way (consent, "what's new"), which a later visit may not show."""
    target = action.target
    return (action.action.name == "click" and target is not None and bool(target.overlay)
            and action.expect.element_gone and action.expect.url_contains is None)


def _expect_from(action: RecipeAction, url_after: str, announced_before: list[str], announced_after: list[str],
                 variables: dict[str, str], varying: dict[str, str]) -> None:
    path = template(_path(url_after), variables)
    if path != action.fingerprint.url_contains:
        used = names_in(" ".join(str(v) for v in action.action.args().values())
                        + (action.target.name if action.target else ""))
        if used and not names_in(path):  # the value may be in this address in a form not seen
            varying[_path(url_after)] = path = loosen(path)
        action.expect.url_contains = path
    action.expect.text_appeared = [template(text, variables) for text in announced_after
                                   if text not in announced_before]


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

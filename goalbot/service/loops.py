"""Loops made from a recording: the steps that did the same actions on each record of a list an
earlier `extract` kept become one pass, done on every record of that list when the recipe reruns,
whatever its length."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from goalbot.agents.records import records_in
from goalbot.events import EventType
from goalbot.payloads import ExtractedData, ShownAction
from goalbot.recipes.model import Loop, Recipe, RecipeAction, RecipeStep
from goalbot.recipes.variables import each_text, record_values, template
from storage import queries, recipes

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


class LoopError(ValueError):
    """The steps named do not make a loop: one line for the person."""


def make_loop(db: sqlite_utils.Database, name: str, over: str, first: int, last: int, each: int | None) -> Recipe:
    """Steps `first`–`last` of recipe `name`, which acted on the records of the list `over` one
    after another, become one loop over that list; `each`: actions per record (default: the
    actions over the records the recording read). The caller's new version is returned."""
    caller = recipes.load(db, name)
    if caller is None:
        raise LoopError(f"no recipe {name} (goalbot recipe list)")
    if not 1 <= first <= last <= len(caller.steps):
        raise LoopError(f"recipe {name} has steps 1–{len(caller.steps)}; --steps {first}-{last} is not among them")
    taken = caller.steps[first - 1:last]
    if any(step.block or step.branches or step.for_each for step in taken):
        raise LoopError(f"steps {first}-{last} hold a block, a way or a loop: a loop's pass is plain actions")
    key = over.split(".")[0]
    if not any(action.action.name == "extract" and action.action.arg("key") == key and action.reads
               for step in caller.steps[:first - 1] for action in step.actions):
        raise LoopError(f"no step before step {first} extracts {key!r}: a loop goes through a list read earlier")
    actions = [action for step in taken for action in step.actions]
    records = _recorded_records(db, caller, over)
    each = each or (len(actions) // len(records) if records and len(actions) % len(records) == 0 else len(actions))
    if each < 1 or len(actions) % each:
        raise LoopError(f"steps {first}-{last} hold {len(actions)} actions: not passes of {each} (--each N)")
    passes = [actions[start:start + each] for start in range(0, len(actions), each)]
    for later in passes[1:]:
        for recorded, again in zip(passes[0], later):
            if (recorded.action.name, _role(recorded)) != (again.action.name, _role(again)):
                raise LoopError(f"the passes differ: {recorded.words()} then {again.words()}; give --each N, "
                                "the actions each record took")
    values = record_values(records[0]) if records else {}
    body = [_per_record(action, values) for action in passes[0]]
    try:
        loop = Loop(over=over, actions=body)
    except ValidationError as exc:
        raise LoopError(f"--over {over}: {exc.errors()[0]['msg']}") from exc
    step = RecipeStep(description=f"for each of {over}: " + "; ".join(s.description for s in taken if s.description),
                      for_each=loop)
    return recipes.save(db, caller.model_copy(update={"steps": [*caller.steps[:first - 1], step, *caller.steps[last:]]}))


def _role(action: RecipeAction) -> str:
    return action.target.role if action.target else ""


def _per_record(action: RecipeAction, values: dict[str, str]) -> RecipeAction:
    """The first pass's action with the first record's values written as {{each_FIELD}}: the
    button named by the order is found by each order's own."""
    kept = action.model_copy(deep=True)
    if kept.target is not None:
        kept.target = each_text(kept.target, lambda text: template(text, values))
    if isinstance(kept.action.arg("text"), str):
        kept.action = ShownAction(name=kept.action.name, **{**kept.action.args(),
                                                             "text": template(str(kept.action.arg("text")), values)})
    kept.expect.text_appeared = [template(text, values) for text in kept.expect.text_appeared]
    if kept.expect.url_contains:
        kept.expect.url_contains = template(kept.expect.url_contains, values)
    return kept


def _recorded_records(db: sqlite_utils.Database, recipe: Recipe, over: str) -> list[dict[str, Any]]:
    """The records the recording read under `over` (its last valid reading); none when unknown."""
    if not recipe.source_session:
        return []
    key, *path = over.split(".")
    read = [e.data_of(ExtractedData) for e in queries.session_events(db, recipe.source_session)
            if e.type is EventType.EXTRACTED and e.data_of(ExtractedData).key == key and e.data_of(ExtractedData).valid]
    return (records_in(read[-1].data, path or None) or []) if read else []

"""A patch that found a new way to do a step is kept beside the recorded way, not over it: a site
that serves two layouts (an A/B test) then reruns with no model on both. The new way becomes a
branch of the step, chosen by the first element it acts on that the recorded way never did."""

from __future__ import annotations

from goalbot.recipes.model import MAX_BRANCHES, Branch, Evidence, Recipe, RecipeAction, When


def branched(recorded: Recipe, patched: Recipe, changed: set[int]) -> Recipe:
    """The next version: `patched`, where each step in `changed` (numbers) keeps the recorded way,
    with the patched way as another branch. A step whose new way acts on nothing new (it only
    dropped an action) takes the patched way alone: no condition could tell the two apart."""
    if len(recorded.steps) != len(patched.steps):
        return patched
    steps = list(patched.steps)
    for number in sorted(changed):
        if not 1 <= number <= len(steps):
            continue
        old, new = recorded.steps[number - 1], patched.steps[number - 1]
        telling = _telling(old.actions, new.actions)
        if telling is not None and len(old.branches) < MAX_BRANCHES:
            steps[number - 1] = old.model_copy(update={
                "branches": [*old.branches, Branch(when=When(element=telling), actions=new.actions)]})
    return patched.model_copy(update={"steps": steps})


def _telling(old: list[RecipeAction], new: list[RecipeAction]) -> Evidence | None:
    """The first element the new way acts on that the old way did not: where it is on the page,
    the new way is the one."""
    before = [_identity(action.target) for action in old if action.target is not None]
    for action in new:
        if action.target is not None and _identity(action.target) not in before:
            return action.target.model_copy(update={"box": None})
    return None


def _identity(target: Evidence) -> tuple[str, str, str, str]:
    return target.role, target.name, target.id, target.css

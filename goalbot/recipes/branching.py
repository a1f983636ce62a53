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
        shared = _shared(old.actions, new.actions)
        telling = _telling(old.actions, new.actions[shared:])
        if telling is None or len(old.branches) >= MAX_BRANCHES:
            continue
        way = Branch(when=When(element=telling), actions=new.actions[shared:], after=shared)
        if any(_same_way(way, kept) for kept in old.branches):
            steps[number - 1] = old  # healed again the way it already keeps: nothing new to keep
            continue
        steps[number - 1] = old.model_copy(update={"branches": [*old.branches, way]})
    return patched.model_copy(update={"steps": steps})


def _shared(old: list[RecipeAction], new: list[RecipeAction]) -> int:
    """How many first actions the two ways do alike: the new way's condition is looked for after them."""
    count = 0
    for before, now in zip(old, new):
        if (before.action.name, before.target and _identity(before.target)) != (
                now.action.name, now.target and _identity(now.target)):
            break
        count += 1
    return min(count, max(len(new) - 1, 0))


def _same_way(one: Branch, other: Branch) -> bool:
    def shape(way: Branch) -> tuple[object, ...]:
        when = way.when.element and _identity(way.when.element)
        return (way.after, when, way.when.text, way.when.url_contains,
                tuple((a.action.name, a.target and _identity(a.target)) for a in way.actions))
    return shape(one) == shape(other)


def _telling(old: list[RecipeAction], new: list[RecipeAction]) -> Evidence | None:
    """The first element the new way acts on that the old way did not: where it is on the page,
    the new way is the one."""
    before = [_identity(action.target) for action in old if action.target is not None]
    for action in new:
        if action.target is not None and _identity(action.target) not in before:
            return action.target.model_copy(update={"box": None})
    return None


def _identity(target: Evidence) -> tuple[str, str, str]:
    # Not the CSS path: the same card's button sits at another nth-of-type on every page.
    return target.role, target.name, target.id


def without_ways(recipe: Recipe, failed: list[tuple[int, Branch]]) -> Recipe:
    """`recipe` with each (step number, way) in `failed` taken out of its step: a way taken because
    its condition held and that then failed would be taken again on the same page."""
    steps = list(recipe.steps)
    for number, way in failed:
        if 1 <= number <= len(steps):
            step = steps[number - 1]
            steps[number - 1] = step.model_copy(update={
                "branches": [kept for kept in step.branches if not _same_way(kept, way)]})
    return recipe.model_copy(update={"steps": steps})

"""The planner's actions for a one-step plan, checked against the page the navigator sees once the
plan is approved. Pages move on their own (a clock, a ticker, "updated 3 s ago"): what must hold is
what the actions name — each element they point at, by its role, name and place — not every word
on the page. An element that kept its role, name and place under another index is pointed at by
its new one."""

from __future__ import annotations

from goalbot.actions import Action
from goalbot.operators.base import Element, Observation

INDEX_FIELDS = ("index", "to_index")
POINT_FIELDS = ("x", "y", "to_x", "to_y")
PLACE_TOLERANCE_PX = 4.0  # a layout that settled a few pixels later is the same place


def still_fitting(actions: list[Action], given_on: Observation, now: Observation) -> list[Action] | None:
    """`actions` as they apply to `now`, or None when the page they were given on is gone: another
    address, an element they name no longer there (or not surely the same), or a point on a page
    that changed at all (nothing says what is under a point now)."""
    if now.url != given_on.url:
        return None
    before, after = given_on.elements, now.elements
    fitted: list[Action] = []
    for action in actions:
        if any(getattr(action, name, None) is not None for name in POINT_FIELDS):
            if given_on.seen_again().items != now.seen_again().items:
                return None
            fitted.append(action)
            continue
        update: dict[str, int] = {}
        for name in INDEX_FIELDS:
            index = getattr(action, name, None)
            if index is None:
                continue
            was = before.get(index)
            found = _same_element(was, after) if was is not None else None
            if found is None:
                return None
            if found != index:
                update[name] = found
        fitted.append(action.model_copy(update=update) if update else action)
    return fitted


def _same_element(was: Element, now: dict[int, Element]) -> int | None:
    """The index under which `was` is on the page now: the same index when it is still that
    element, else the one element with its role, name and place."""
    if _same(was, now.get(was.index)):
        return was.index
    matches = [index for index, element in now.items() if _same(was, element)]
    return matches[0] if len(matches) == 1 else None


def _same(was: Element, now: Element | None) -> bool:
    if now is None or (now.role, now.name, now.input_type) != (was.role, was.name, was.input_type):
        return False
    if was.box is None or now.box is None:
        return was.box is None and now.box is None
    return all(abs(a - b) <= PLACE_TOLERANCE_PX for a, b in zip(was.box, now.box))

"""A recipe made from a run that created an object: the id the run was given is the run's own, so
the recipe expects any number where it was (in the address, in the announcement, on the pages
after), while the person's values and the numbers already on the page are still checked."""

from __future__ import annotations

from typing import Any

from goalbot.events import Actor, Event, EventType
from goalbot.recipes.build import build

SITE = "http://127.0.0.1:8123"


def _events(*made: tuple[EventType, Actor, int | None, dict[str, Any]]) -> list[Event]:
    return [Event(session_id="s", seq=n, type=kind, actor=actor, step=step, data=data)
            for n, (kind, actor, step, data) in enumerate(made)]


def _look(path: str, title: str, *said: str) -> tuple[EventType, Actor, int, dict[str, Any]]:
    return EventType.OBSERVATION, Actor.NAVIGATOR, 1, {"url": SITE + path, "title": title, "announced": list(said)}


def _act(kind: EventType, name: str, target: str, **arguments: Any) -> tuple[EventType, Actor, int, dict[str, Any]]:
    return kind, Actor.NAVIGATOR, 1, {"action": {"name": name, **arguments},
                                      "target": {"role": "button" if name == "click" else "textbox", "name": target,
                                                 "css": "body > form:nth-of-type(1) > button:nth-of-type(4)"}}


def _creating(then: list[tuple[EventType, Actor, int | None, dict[str, Any]]]) -> list[Event]:
    return _events(
        (EventType.TASK_START, Actor.USER, None, {"goal": "add the user bob to group 3", "url": SITE + "/things/add/",
                                                 "model": "m", "base_url": "http://m/v1", "max_steps": 9}),
        (EventType.STEP_START, Actor.PLANNER, 1, {"index": 1, "description": "Add bob"}),
        _look("/things/add/", "Add thing"),
        _act(EventType.ACT_START, "type", "Name", text="bob"),
        _act(EventType.ACT_OK, "type", "Name", text="bob"),
        _look("/things/add/", "Add thing"),
        _act(EventType.ACT_START, "click", "Save"),
        _act(EventType.ACT_OK, "click", "Save"),
        _look("/things/4/change/", "bob | Change thing", "The thing #4 “bob” in group 3 was added."),
        *then,
        (EventType.TASK_OK, Actor.SYSTEM, None, {"reason": "added"}))


def test_an_id_the_run_made_is_wild_and_the_rest_is_kept() -> None:
    recipe = build("add-thing", _creating([]), {"name": "bob"})
    save = recipe.steps[0].actions[1]
    assert save.expect.url_contains == "/things/*/change/"
    # The person's value is still checked; the 3 of the goal is theirs, and stays.
    assert save.expect.text_appeared == ["The thing #* “{{name}}” in group 3 was added."]


def test_the_pages_after_keep_the_id_wild_and_a_number_that_was_on_the_page_is_kept() -> None:
    later = [_act(EventType.ACT_START, "click", "History"), _act(EventType.ACT_OK, "click", "History"),
             _look("/things/4/history/7/", "History of bob"),
             _act(EventType.ACT_START, "click", "Back"), _act(EventType.ACT_OK, "click", "Back"),
             _look("/things/4/history/", "History of bob")]
    recipe = build("add-thing", _creating(later), {"name": "bob"})
    history, back = recipe.steps[0].actions[2:]
    assert history.fingerprint.url_contains == "/things/*/change/"  # the page the new object is on
    assert history.expect.url_contains == "/things/*/history/*/"  # 7: on no page before, made by this run too
    assert back.fingerprint.url_contains == "/things/*/history/*/"
    assert back.expect.url_contains == "/things/*/history/"


def test_a_number_given_as_a_variable_is_checked_as_the_variable() -> None:
    events = _creating([])
    recipe = build("add-thing", events, {"name": "bob", "group": "3"})
    assert recipe.steps[0].actions[1].expect.text_appeared == ["The thing #* “{{name}}” in group {{group}} was added."]


def test_a_number_the_run_read_off_the_page_is_no_id_of_its_own() -> None:
    read = (EventType.EXTRACTED, Actor.NAVIGATOR, 1, {"key": "seat", "data": {"label": "A2", "price": 49}, "valid": True})
    events = _creating([])
    events = _events(*[(e.type, e.actor, e.step, e.data) for e in events[:3]], read,
                     *[(e.type, e.actor, e.step, e.data) for e in events[3:8]],
                     _look("/things/4/change/", "bob", "The thing #4 “bob” costs 49."),
                     (EventType.TASK_OK, Actor.SYSTEM, None, {"reason": "added"}))
    assert build("add-thing", events, {"name": "bob"}).steps[0].actions[1].expect.text_appeared == [
        "The thing #* “{{name}}” costs 49."]

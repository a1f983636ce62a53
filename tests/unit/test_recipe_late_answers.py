"""What an action made a page announce may come after the look that followed it (an app that
answers over its socket): a later look of the same page, before any other action, still tells a
recipe what the action is to bring about; a look after the next action does not."""

from __future__ import annotations

from typing import Any

from goalbot.events import Actor, Event, EventType
from goalbot.recipes.build import build

SITE = "http://127.0.0.1:8123"
Made = tuple[EventType, Actor, int | None, dict[str, Any]]


def _look(path: str, *said: str) -> Made:
    return EventType.OBSERVATION, Actor.NAVIGATOR, 1, {"url": SITE + path, "title": "여행", "announced": list(said)}


def _act(kind: EventType, name: str, target: str, **arguments: Any) -> Made:
    return kind, Actor.NAVIGATOR, 1, {"action": {"name": name, **arguments},
                                      "target": {"role": "button" if name == "click" else "textbox", "name": target}}


def _saving(*after: Made) -> list[Event]:
    made: list[Made] = [
        (EventType.TASK_START, Actor.USER, None, {"goal": "save the trip of 민지", "url": SITE + "/",
                                                 "model": "m", "base_url": "http://m/v1", "max_steps": 9}),
        (EventType.STEP_START, Actor.PLANNER, 1, {"index": 1, "description": "Save the trip"}),
        _look("/", "Welcome back"),
        _act(EventType.ACT_START, "type", "Name", text="민지"), _act(EventType.ACT_OK, "type", "Name", text="민지"),
        _look("/", "Welcome back"),
        _act(EventType.ACT_START, "click", "Save trip"), _act(EventType.ACT_OK, "click", "Save trip"),
        _look("/", "Welcome back"),  # the answer is still on its way
        *after,
        (EventType.TASK_OK, Actor.SYSTEM, None, {"reason": "saved"})]
    return [Event(session_id="s", seq=n, type=kind, actor=actor, step=step, data=data)
            for n, (kind, actor, step, data) in enumerate(made)]


def test_a_confirmation_seen_only_by_a_later_look_is_what_the_save_expects() -> None:
    recipe = build("trip", _saving(_look("/", "Welcome back", "민지님의 여행을 저장했어요 (3 trips).")), {"name": "민지"})
    save = recipe.steps[0].actions[1]
    # The person's value is a variable; the count the app made is any number; what was there before is not asked.
    assert save.expect.text_appeared == ["{{name}}님의 여행을 저장했어요 (* trips)."]


def test_what_a_look_after_the_next_action_shows_is_not_the_save_s() -> None:
    recipe = build("trip", _saving(_act(EventType.ACT_START, "click", "Share"), _act(EventType.ACT_OK, "click", "Share"),
                                   _look("/", "Welcome back"),
                                   _look("/", "Welcome back", "Shared with 2 friends.")), {"name": "민지"})
    save, share = recipe.steps[0].actions[1:]
    assert save.expect.text_appeared == []
    assert share.expect.text_appeared == ["Shared with * friends."]


def test_a_later_look_of_another_page_says_nothing_of_the_save() -> None:
    recipe = build("trip", _saving(_look("/elsewhere", "Saved somewhere else.")), {"name": "민지"})
    assert recipe.steps[0].actions[1].expect.text_appeared == []

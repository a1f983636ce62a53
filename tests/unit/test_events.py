"""The event vocabulary: typed data, strictly increasing seq, delivery to every subscriber."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from goalbot.events import Actor, Bus, Emitter, Event, EventType


def test_emitter_numbers_events_and_every_subscriber_gets_them() -> None:
    bus = Bus()
    first: list[Event] = []
    second: list[Event] = []
    bus.subscribe(first.append)
    bus.subscribe(second.append)
    emitter = Emitter(bus, "s1")
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, goal="g", model="m", base_url="u", max_steps=3)
    emitter.emit(EventType.STEP_START, Actor.PLANNER, 1, index=1, description="do it")
    assert [e.seq for e in first] == [1, 2]
    assert first == second
    assert first[1].step == 1 and first[1].data["description"] == "do it"


def test_data_is_checked_against_the_event_type() -> None:
    with pytest.raises(ValidationError):
        Event(session_id="s", seq=1, type=EventType.STEP_START, actor=Actor.PLANNER, data={"index": 1})
    with pytest.raises(ValidationError):
        Event(session_id="s", seq=1, type="NOT_A_TYPE", actor=Actor.PLANNER)


def test_artifacts_get_unique_ids_and_reach_subscribers() -> None:
    bus = Bus()
    seen: list[str] = []
    bus.subscribe_artifacts(lambda a: seen.append(a.id))
    emitter = Emitter(bus, "s1")
    ids = {emitter.artifact("screenshot", "image/jpeg", b"x") for _ in range(3)}
    assert len(ids) == 3 and set(seen) == ids


def test_events_round_trip_through_json() -> None:
    bus = Bus()
    got: list[Event] = []
    bus.subscribe(got.append)
    Emitter(bus, "s1").emit(EventType.LLM_CALL, Actor.NAVIGATOR, 2, role="navigator", model="m",
                            latency_ms=12, tokens_in=3, tokens_out=4)
    assert Event.model_validate_json(got[0].model_dump_json()) == got[0]


def test_a_start_line_names_the_page_once() -> None:
    from goalbot.text.eventfmt import line

    def start(goal: str, url: str | None) -> str:
        return line(Event(session_id="s", seq=1, type=EventType.TASK_START, actor=Actor.USER, data={
            "goal": goal, "url": url, "model": "m", "base_url": "http://m", "max_steps": 5}))

    typed = start("open http://shop.test/cart and pay", "http://shop.test/cart")
    assert typed.count("http://shop.test/cart") == 1
    assert "at http://shop.test/" in start("pay for the cart", "http://shop.test/")

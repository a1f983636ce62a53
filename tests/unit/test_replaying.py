"""A session's progress rebuilt from its events for `goalbot resume`: the steps left, and which of
them the planner said take many actions, so a resumed long step keeps its doubled turns."""

from __future__ import annotations

from goalbot.agents.replaying import state_from_events
from goalbot.events import Actor, Bus, Emitter, Event, EventType


def test_a_resumed_plan_keeps_its_long_steps() -> None:
    bus, events = Bus(), []
    bus.subscribe(events.append)
    emit = Emitter(bus, "s1").emit
    steps = ["Sign in", "Book the flight from the form", "Check the booking"]
    emit(EventType.PLAN_PROPOSED, Actor.PLANNER, None, steps=steps, long_steps=[2])
    # The person dropped the first step; the long one keeps its mark by its words, not its number.
    emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=steps[1:], by="user")
    emit(EventType.STEP_START, Actor.NAVIGATOR, 1, index=1, description=steps[1])
    state = state_from_events([e for e in events if isinstance(e, Event)])
    assert state.remaining == steps[1:]
    assert state.long_steps == ["Book the flight from the form"]

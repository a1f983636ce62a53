"""A session's progress rebuilt from its stored events, to resume it where it was cut off."""

from __future__ import annotations

from goalbot.agents.progress import RunState
from goalbot.events import Actor, Event, EventType as T
from goalbot.payloads import ActionData, PlanData, PlanDecisionData, QuestionData, ReplyData, StepData


def state_from_events(events: list[Event]) -> RunState:
    state = RunState()
    open_step: tuple[int, str] | None = None
    question: str | None = None
    proposed_long: set[str] = set()
    for event in events:
        match event.type, event.payload:
            case T.PLAN_PROPOSED, PlanData() as d:
                state.plan_revision = max(state.plan_revision, d.revision)
                proposed_long = {step for n, step in enumerate(d.steps, 1) if n in d.long_steps}
            case T.PLAN_APPROVED, PlanDecisionData() as d:
                state.plan, state.plan_done = list(d.steps), 0
                state.long_steps = [step for step in d.steps if step in proposed_long]
            case T.STEP_START, StepData() as d:
                state.steps_run = max(state.steps_run, event.step or 0)
                open_step = (event.step or 0, d.description)
            case T.STEP_OK, StepData() as d:
                state.plan_done += 1
                state.history.append(f"step {event.step} '{d.description}': done ({d.reason})")
                open_step = None
            case T.STEP_FAIL, StepData() as d:
                state.history.append(f"step {event.step} '{d.description}': FAILED ({d.reason})")
                state.plan = state.plan[:state.plan_done]  # a failed step always led to a new plan
                open_step = None
            case T.ACT_OK, ActionData() as d if d.action.name == "save_data":
                state.saved_data[str(d.action.arg("key"))] = str(d.action.arg("value"))
            case T.ASK_USER, QuestionData() as d if event.actor is Actor.PLANNER:
                question = d.question
            case T.USER_REPLY, ReplyData() as d if question and not d.declined:
                state.clarifications.append(f"{question} — {d.answer}")
                question = None
    if open_step is not None:
        number, description = open_step
        state.history.append(f"step {number} '{description}': cut off when the run was interrupted")
    return state

"""How much an event asks of the person's attention, in one vocabulary for every view: the
dashboard's log, `goalbot tail` on a terminal, the toasts. Colour only repeats it: each line also
says its event type in words."""

from __future__ import annotations

from enum import StrEnum

from goalbot.events import Event, EventType as T
from goalbot.payloads import PolicyData, PolicyName


class Severity(StrEnum):
    ERROR = "error"  # something failed
    WARNING = "warning"  # something was refused, stopped or judged not done
    SUCCESS = "success"
    NOTICE = "notice"  # the story's milestones, and what waits for the person
    ROUTINE = "routine"  # pacing, looks, model calls: there, but not to be read


# A policy that only paces the run is routine; one that refuses or stops something is a warning.
ROUTINE_POLICIES = {PolicyName.MIN_INTERVAL, PolicyName.CLICKS_PER_MINUTE, PolicyName.HELD_WRITES}

_BY_TYPE = {
    T.TASK_FAIL: Severity.ERROR, T.STEP_FAIL: Severity.ERROR, T.ACT_FAIL: Severity.ERROR,
    T.LLM_ERROR: Severity.ERROR, T.APPROVAL_DENIED: Severity.WARNING, T.TASK_CANCEL: Severity.WARNING,
    T.VALIDATE_FAIL: Severity.WARNING, T.PLAN_REJECTED: Severity.WARNING,
    T.TASK_OK: Severity.SUCCESS, T.STEP_OK: Severity.SUCCESS, T.VALIDATE_OK: Severity.SUCCESS,
    T.APPROVAL_GRANTED: Severity.SUCCESS,
    T.TASK_START: Severity.NOTICE, T.STEP_START: Severity.NOTICE, T.PLAN_PROPOSED: Severity.NOTICE,
    T.PLAN_APPROVED: Severity.NOTICE, T.APPROVAL_REQUEST: Severity.NOTICE, T.ASK_USER: Severity.NOTICE,
    T.TASK_PAUSE: Severity.NOTICE, T.TASK_RESUME: Severity.NOTICE, T.USER_REPLY: Severity.NOTICE,
}


def severity(event: Event) -> Severity:
    if event.type is T.POLICY:
        return Severity.ROUTINE if event.data_of(PolicyData).policy in ROUTINE_POLICIES else Severity.WARNING
    return _BY_TYPE.get(event.type, Severity.ROUTINE)

"""The live step log: actions, results and verdicts as they happen."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from goalbot import eventfmt
from goalbot.events import Event, EventType as T

STYLES = {
    T.STEP_START: "bold", T.STEP_OK: "green", T.STEP_FAIL: "red", T.ACT_OK: "",
    T.ACT_FAIL: "red", T.VALIDATE_OK: "green", T.VALIDATE_FAIL: "yellow", T.TASK_OK: "bold green",
    T.TASK_FAIL: "bold red", T.TASK_CANCEL: "bold yellow", T.PLAN_PROPOSED: "cyan",
    T.PLAN_APPROVED: "cyan", T.PLAN_REJECTED: "yellow", T.LLM_ERROR: "red", T.TASK_START: "bold",
}
# Chatter that the status line already sums up stays out of the log.
QUIET = {T.ACT_START, T.LLM_CALL, T.GOAL_STATUS, T.OBSERVATION}


class StepLog(RichLog):
    def add(self, event: Event) -> None:
        if event.type in QUIET:
            return
        line = Text()
        line.append(f"{event.ts.astimezone():%H:%M:%S} ", style="dim")
        line.append(f"{event.type.value:<13} ", style=STYLES.get(event.type, ""))
        line.append(eventfmt.summary(event))
        self.write(line)

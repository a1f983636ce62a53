"""The plan: each step with its state, and the approval prompt while a plan waits."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.widgets import Static

from tui.state import DashboardState, PlanStep, StepState

MARKS = {
    StepState.PENDING: ("○", "dim"),
    StepState.RUNNING: ("▶", "bold yellow"),
    StepState.OK: ("✔", "green"),
    StepState.FAILED: ("✘", "red"),
    StepState.REPLANNED: ("↻", "dim strike"),
}


SHOWN = 60  # more than a screen's height; older steps are summed up in one line


def waiting_line(state: DashboardState, waited_s: float | None) -> str:
    """What the panel says while there is no plan: nothing asked yet, the planner's time so far,
    or that the run ended before it had one."""
    if not state.goal:
        return "no goal yet"
    if state.finished:
        return f"no plan: the run ended ({state.status.value})"
    if waited_s is None or waited_s < 1:
        return "waiting for the planner…"
    return f"waiting for the planner… {_duration(waited_s)}"


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


class PlanPanel(Static):
    def show(self, state: DashboardState, waited_s: float | None = None) -> None:
        """`waited_s`: how long the run has waited for its first plan, when it still does."""
        text = Text()
        if not state.plan:
            text.append(waiting_line(state, waited_s), style="dim")
        plan = state.plan
        if state.awaiting_approval and state.draft is not None:
            plan = [s for s in plan if s.state is not StepState.PENDING] + [PlanStep(t) for t in state.draft]
            text.append("your edits, not approved yet\n", style="dim italic")
        first = max(0, len(plan) - SHOWN)
        if first:  # a long session: its newest steps, the way a log shows its tail
            text.append(f"… {first} earlier steps\n", style="dim")
        # A step is numbered as the run counts it: one planned again before it ran has no number.
        number = sum(s.state is not StepState.REPLANNED for s in plan[:first])
        for step in plan[first:]:
            mark, style = MARKS[step.state]
            if step.state is StepState.REPLANNED:
                text.append(f"{mark} –  ", style=style)
            else:
                number += 1
                text.append(f"{mark} {number}. ", style=style)
            text.append(step.text, style=style if step.state is StepState.REPLANNED else "")
            if step.found_by:  # a rerun: which rungs of the ladder carried the step
                # A line of its own: wrapped beside the step, "cached 3" would break from its count.
                text.append("\n     found: " + ", ".join(f"{rung} {n}" for rung, n in step.found_by.items()),
                            style="dim")
            text.append("\n")
        if state.awaiting_approval:
            text.append("\nApprove this plan? ", style="bold")
            # Drawn as the footer draws its keys: reversed text vanished under a dialog's shade.
            accent = Color.parse(self.app.current_theme.accent or "yellow").rich_color
            key_style = Style(bold=True, color=accent)
            for key, what in (("a", "approve"), ("e", "edit"), ("r", "reject")):
                text.append(key, style=key_style)
                text.append(f" {what}  ")
        self.border_title = f"Plan v{state.plan_revision}" if state.plan_revision else "Plan"
        self.update(text)

"""The plan: each step with its state, and the approval prompt while a plan waits."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.widgets import Static

from tui.state import DashboardState, StepState

MARKS = {
    StepState.PENDING: ("○", "dim"),
    StepState.RUNNING: ("▶", "bold yellow"),
    StepState.OK: ("✔", "green"),
    StepState.FAILED: ("✘", "red"),
    StepState.REPLANNED: ("↻", "dim strike"),
}


SHOWN = 60  # more than a screen's height; older steps are summed up in one line


class PlanPanel(Static):
    def show(self, state: DashboardState) -> None:
        text = Text()
        if not state.plan:  # before any goal there is nobody to wait for
            text.append("waiting for the planner…" if state.goal else "no goal yet", style="dim")
        first = max(0, len(state.plan) - SHOWN)
        if first:  # a long session: its newest steps, the way a log shows its tail
            text.append(f"… {first} earlier steps\n", style="dim")
        for number, step in enumerate(state.plan[first:], first + 1):
            mark, style = MARKS[step.state]
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

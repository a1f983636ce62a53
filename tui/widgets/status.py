"""One line: status, step n/max, progress, confidence with its trend, model calls, tokens and cost,
and the Validator's last word."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.palette import NO_COLOR_BADGE, colours_of
from tui.state import DashboardState

BARS = "▁▂▃▄▅▆▇█"


def trend(confidences: list[float]) -> Text:
    """A sparkline of the confidence readings, and an arrow for the last change."""
    if not confidences:
        return Text("")
    line = "".join(BARS[min(len(BARS) - 1, max(0, int(c * len(BARS))))] for c in confidences)
    arrow, style = "", ""
    if len(confidences) > 1:
        change = confidences[-1] - confidences[-2]
        arrow, style = ("↑", "green") if change > 0.02 else ("↓", "red") if change < -0.02 else ("→", "dim")
    return Text.assemble((f" {line}", "cyan"), (arrow, style))


class StatusLine(Static):
    def show(self, state: DashboardState) -> None:
        text = Text()
        style = NO_COLOR_BADGE if self.app.no_color else colours_of(state.status).badge
        if not state.session_id:  # nothing has started: there is no step, no progress to speak of
            text.append(" no goal yet ", style=style)
            text.append("  type one above and press Enter", style="dim")
            self.update(text)
            return
        text.append(f" {state.status} ", style=style)
        text.append(f"  step {state.step}/{state.max_steps or '?'}")
        text.append(f"  progress {state.progress}%")
        text.append(f"  confidence {state.confidence:.2f}")
        text.append(trend(state.confidences))
        text.append(f"  calls {state.usage.calls} · tokens {state.usage.tokens:,}")
        if state.usage.cost_usd is not None:
            text.append(f" · ${state.usage.cost_usd:.4f}")
        if state.usage.errors:
            text.append(f" · {state.usage.errors} retried", style="yellow")
        if state.last_verdict:
            text.append("  validator: ", style="dim")
            text.append(state.last_verdict)
        self.update(text)

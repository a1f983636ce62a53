"""One line: status, step n/max, progress, confidence with its trend, model calls, tokens and cost,
and the Validator's last word."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.state import DashboardState

# Explicit foreground and background, so the badge reads in 16-colour terminals too.
STATUS_STYLES = {"ok": "bold white on green", "failed": "bold white on red",
                 "cancelled": "bold black on yellow", "awaiting approval": "bold white on magenta",
                 "paused": "bold white on magenta"}
DEFAULT_STYLE = "bold black on cyan"
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
        text.append(f" {state.status} ", style=STATUS_STYLES.get(state.status, DEFAULT_STYLE))
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

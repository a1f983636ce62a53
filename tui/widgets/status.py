"""One line: status, step n/max, progress, confidence, model calls, and the Validator's last word."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.state import DashboardState

STATUS_STYLES = {"done": "bold green", "failed": "bold red", "cancelled": "bold yellow",
                 "awaiting approval": "bold magenta"}


class StatusLine(Static):
    def show(self, state: DashboardState) -> None:
        text = Text()
        text.append(f" {state.status} ", style=STATUS_STYLES.get(state.status, "bold cyan") + " reverse")
        text.append(f"  step {state.step}/{state.max_steps or '?'}")
        text.append(f"  progress {state.progress}%")
        text.append(f"  confidence {state.confidence:.2f}")
        text.append(f"  calls {state.model_calls} · tokens {state.tokens}")
        if state.last_verdict:
            text.append("  validator: ", style="dim")
            text.append(state.last_verdict)
        self.update(text)

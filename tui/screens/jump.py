"""Asking for a step number to jump to, in a replay."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class JumpScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-dialog"):
            yield Label(f"Jump to step (1–{self.steps})")
            yield Input(type="integer", id="jump-step")

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(int(message.value) if message.value.strip().lstrip("-").isdigit() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)

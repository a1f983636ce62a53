"""Rejecting a plan: the person says what to change, and the planner tries again."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput


class RejectScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="reject-dialog"):
            yield Label("Reject the plan. What should the planner do differently?")
            yield TypedInput(placeholder="feedback for the planner (Enter to send, Esc to go back)",
                             id="feedback")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)

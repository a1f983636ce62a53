"""Asking for a step number to jump to, in a replay."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput


class JumpScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, first: int, last: int) -> None:
        super().__init__()
        self.first, self.last = first, last

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-dialog"):
            yield Label(f"Jump to step ({self.first}–{self.last})")
            yield TypedInput(type="integer", id="jump-step")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        if not text.lstrip("-").isdigit():
            self.notify(f"A step number, {self.first}–{self.last}", severity="warning")
            return
        self.dismiss(int(text))  # one out of range is said by the replay, which knows the steps

    def action_cancel(self) -> None:
        self.dismiss(None)

"""Asking what to look for in the step log (`/`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput


class FindScreen(ModalScreen[str | None]):
    """Dismissed with the text to find, or None (Esc). Opens with the last search, so `/` Enter
    finds its next match."""

    BINDINGS = [Binding("escape", "cancel", "Back")]

    def __init__(self, last: str) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        with Vertical(id="find-dialog"):
            yield Label("Find in the log (Enter finds the next match; Esc closes)")
            yield TypedInput(self.last, placeholder="text, any case", id="find-text")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)

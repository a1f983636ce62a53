"""A yes-or-no the run waits for, such as going over the model budget."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class ConsentScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes, go on"),
        Binding("n,escape", "answer(False)", "No, stop"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="consent-dialog"):
            yield Label(self.question, id="consent-question")
            yield Label("[b]y[/b] go on    [b]n[/b] stop the run", id="consent-keys")

    def action_answer(self, granted: bool) -> None:
        self.dismiss(granted)

"""A yes-or-no the run waits for: GO / NOT GO on a risky action, going over the model budget."""

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

    def __init__(self, question: str, risky: bool = False) -> None:
        super().__init__()
        self.question = question
        self.risky = risky

    def compose(self) -> ComposeResult:
        keys = ("[b]y[/b] GO    [b]n[/b] NOT GO (the run stops)" if self.risky
                else "[b]y[/b] go on    [b]n[/b] stop the run")
        with Vertical(id="consent-dialog"):
            yield Label(self.question, id="consent-question", markup=False)
            yield Label(keys, id="consent-keys")

    def action_answer(self, granted: bool) -> None:
        self.dismiss(granted)

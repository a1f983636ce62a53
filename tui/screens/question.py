"""The agent's question to the person (`call_user`): a 2FA code, a captcha, a choice."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput


class QuestionScreen(ModalScreen[str | None]):
    """Dismissed with the answer, or None when the person declines (Esc)."""

    BINDINGS = [Binding("escape", "decline", "Decline")]

    def __init__(self, question: str, secret: bool) -> None:
        super().__init__()
        self.question = question
        self.secret = secret

    def compose(self) -> ComposeResult:
        with Vertical(id="question-dialog"):
            yield Label("The agent asks:", classes="dim")
            yield Label(self.question, id="question-text")
            hint = "hidden as you type, never stored" if self.secret else "Enter to send"
            yield TypedInput(placeholder=f"your answer ({hint}; Esc declines)", password=self.secret,
                             id="answer")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_decline(self) -> None:
        self.dismiss(None)

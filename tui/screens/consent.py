"""A yes-or-no the run waits for: GO / NOT GO on a risky action (what, where, and the screen it
would happen on), going over the model budget, or deleting a stored session."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from goalbot.payloads import ApprovalData
from tui.widgets.screenshot import ScreenshotPanel


class ConsentScreen(ModalScreen[bool | None]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "later", "Decide later"),
    ]

    def __init__(self, question: str, risky: bool = False, picture: bytes | None = None,
                 where: str = "") -> None:
        super().__init__()
        self.question = question
        self.risky = risky
        self.picture = picture
        self.where = where

    @classmethod
    def for_request(cls, request: ApprovalData, picture: bytes | None) -> ConsentScreen:
        """The dialog for an APPROVAL_REQUEST event."""
        if request.risky:
            return cls(f"GO / NOT GO?\n{request.what}\non {request.where}", risky=True, picture=picture,
                       where=request.where)
        return cls(request.what)

    def compose(self) -> ComposeResult:
        keys = ("[b]y[/b] GO    [b]n[/b] NOT GO (the run stops)    [b]Esc[/b] decide later" if self.risky
                else "[b]y[/b] yes    [b]n[/b] no    [b]Esc[/b] decide later")
        with Vertical(id="consent-dialog", classes="risky" if self.risky else ""):
            yield Label(self.question, id="consent-question", markup=False)
            if self.picture:
                yield ScreenshotPanel(id="consent-picture")
            yield Label(keys, id="consent-keys")

    def on_mount(self) -> None:
        if self.picture:
            self.query_one("#consent-picture", ScreenshotPanel).show(self.picture, self.where)

    def action_answer(self, granted: bool) -> None:
        self.dismiss(granted)

    def action_later(self) -> None:
        self.dismiss(None)

"""A yes-or-no: one the run waits for (GO / NOT GO on a risky action with what, where and the
screen it would happen on; going over the model budget), which Esc puts off; or one the person
asked for themselves (deleting a session, quitting during a run), which Esc cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from goalbot.payloads import ApprovalData
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.screenshot import ScreenshotPanel


class ConsentScreen(ModalScreen[bool | None]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "later", "Decide later"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, question: str, risky: bool = False, picture: bytes | None = None,
                 where: str = "", can_wait: bool = True) -> None:
        """can_wait: the run waits for the answer, so Esc puts it off; else Esc is no."""
        super().__init__()
        self.question = question
        self.risky = risky
        self.picture = picture
        self.where = where
        self.can_wait = can_wait

    @classmethod
    def confirm(cls, question: str) -> ConsentScreen:
        """Are you sure? about something the person is doing: Esc cancels it."""
        return cls(question, can_wait=False)

    @classmethod
    def for_request(cls, request: ApprovalData, picture: bytes | None) -> ConsentScreen:
        """The dialog for an APPROVAL_REQUEST event."""
        if request.risky:
            return cls(f"GO / NOT GO?\n{request.what}\non {request.where}", risky=True, picture=picture,
                       where=request.where)
        return cls(request.what, picture=picture)  # a checkpoint is about the page as it is

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "later":
            return self.can_wait
        if action == "cancel":
            return not self.can_wait
        return True

    def compose(self) -> ComposeResult:
        later = "[b]Esc[/b] decide later" if self.can_wait else "[b]Esc[/b] cancel"
        keys = (f"[b]y[/b] GO    [b]n[/b] NOT GO (the run stops)    {later}" if self.risky
                else f"[b]y[/b] yes    [b]n[/b] no    {later}")
        with Vertical(id="consent-dialog", classes="risky" if self.risky else ""):
            yield Label(self.question, id="consent-question", markup=False)
            if self.picture:
                yield ScreenshotPanel(id="consent-picture")
            yield Label(keys, id="consent-keys")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_mount(self) -> None:
        if self.picture:
            self.query_one("#consent-picture", ScreenshotPanel).show(self.picture, self.where)

    def action_answer(self, granted: bool) -> None:
        self.dismiss(granted)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_later(self) -> None:
        self.dismiss(None)

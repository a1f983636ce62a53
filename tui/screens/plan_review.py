"""Approving a plan: read it, change, reorder, add or delete steps, then approve; or reject it with
feedback for the planner. The edits go through the same commands as the terminal prompt."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList

from goalbot.text import plan_editing


@dataclass
class Review:
    approved: bool
    steps: list[str] | None = None  # None: approved as proposed
    feedback: str = ""


class PlanReviewScreen(ModalScreen[Review | None]):
    """Dismissed with the person's decision, or None to decide later (the plan keeps waiting)."""

    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("e", "edit", "Edit step"),
        Binding("n", "add", "New step"),
        Binding("d,delete", "delete", "Delete"),
        Binding("shift+up,K", "move(-1)", "Move up"),
        Binding("shift+down,J", "move(1)", "Move down"),
        Binding("r", "reject", "Reject"),
        Binding("escape", "back", "Later"),
    ]

    def __init__(self, steps: list[str]) -> None:
        super().__init__()
        self.proposed = list(steps)
        self.steps = list(steps)
        self._editing: str | None = None  # "edit", "add" or "reject" while the input is open

    def compose(self) -> ComposeResult:
        with Vertical(id="review-dialog"):
            yield Label("The plan waits for your approval", id="review-title")
            yield OptionList(id="review-steps")
            yield Label("", id="review-problem")
            yield Input(id="review-input")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#review-input", Input).display = False
        self._show()

    def _show(self, highlight: int | None = None) -> None:
        steps = self.query_one("#review-steps", OptionList)
        current = steps.highlighted if highlight is None else highlight
        steps.clear_options()
        steps.add_options([f"{n}. {text}" for n, text in enumerate(self.steps, 1)])
        if self.steps:
            steps.highlighted = min(max(current or 0, 0), len(self.steps) - 1)
        edited = " (edited)" if self.steps != self.proposed else ""
        self.query_one("#review-title", Label).update(f"The plan waits for your approval{edited}")
        steps.focus()

    @property
    def _current(self) -> int:
        return self.query_one("#review-steps", OptionList).highlighted or 0

    def _apply(self, command: str, highlight: int) -> None:
        try:
            self.steps = plan_editing.apply(self.steps, command)
        except plan_editing.EditError as exc:
            self.query_one("#review-problem", Label).update(str(exc))
            return
        self.query_one("#review-problem", Label).update("")
        self._show(highlight)

    def _open_input(self, mode: str, value: str, placeholder: str) -> None:
        self._editing = mode
        field = self.query_one("#review-input", Input)
        field.value, field.placeholder, field.display = value, placeholder, True
        field.focus()

    def action_edit(self) -> None:
        if self.steps and self._editing is None:
            self._open_input("edit", self.steps[self._current], "the step's new text (Enter saves, Esc cancels)")

    def action_add(self) -> None:
        if self._editing is None:
            self._open_input("add", "", "a new step after the highlighted one (Enter adds)")

    def action_reject(self) -> None:
        if self._editing is None:
            self._open_input("reject", "", "what should the planner do differently? (Enter rejects)")

    def action_delete(self) -> None:
        if self.steps and self._editing is None:
            self._apply(f"d {self._current + 1}", self._current)

    def action_move(self, by: int) -> None:
        target = self._current + by
        if self._editing is None and 0 <= target < len(self.steps):
            self._apply(f"m {self._current + 1} {target + 1}", target)

    def action_approve(self) -> None:
        if self._editing is None:
            self.dismiss(Review(approved=True, steps=None if self.steps == self.proposed else self.steps))

    def action_back(self) -> None:
        if self._editing is not None:
            self._close_input()
        else:
            self.dismiss(None)

    def _close_input(self) -> None:
        self._editing = None
        self.query_one("#review-input", Input).display = False
        self.query_one("#review-steps", OptionList).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text, mode = " ".join(message.value.split()), self._editing
        self._close_input()
        if mode == "reject":
            self.dismiss(Review(approved=False, feedback=text))
        elif text and mode == "edit":
            self._apply(f"{self._current + 1} {text}", self._current)
        elif text and mode == "add":
            position = min(self._current + 2, len(self.steps) + 1) if self.steps else 1
            self._apply(f"i {position} {text}", position - 1)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.action_edit()

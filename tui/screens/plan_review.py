"""Approving a plan: read it, change, reorder, add or delete steps, then approve; or reject it with
feedback for the planner. The edits go through the same commands as the terminal prompt."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from difflib import SequenceMatcher

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList

from goalbot.agents.choosing import PolicyError, choice_rules, read_policies
from goalbot.text import plan_editing
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput


@dataclass
class Review:
    approved: bool
    steps: list[str] | None = None  # None: approved as proposed; put off (later): the steps as left
    feedback: str = ""
    policies: dict[str, Any] | None = None  # None: the drafted choice policies as they were
    later: bool = False  # put off with Esc: the plan keeps waiting, and the edits are kept


def changes(proposed: list[str], steps: list[str]) -> tuple[list[str], list[str]]:
    """The steps as shown, each marked by what the person did to it (~ changed, + added), and
    the proposed steps they removed: what is approved is seen before it is approved."""
    lines: list[str] = []
    removed: list[str] = []
    for op, old_start, old_end, new_start, new_end in SequenceMatcher(a=proposed, b=steps).get_opcodes():
        mark = {"equal": " ", "replace": "~", "insert": "+", "delete": ""}[op]
        if op == "delete":
            removed += proposed[old_start:old_end]
        elif op == "replace":  # the old steps the new ones are least like were the ones removed
            old, new = proposed[old_start:old_end], steps[new_start:new_end]
            kept = sorted(old, key=lambda o: -max(SequenceMatcher(a=o, b=n).ratio() for n in new))[:len(new)]
            removed += [o for o in old if o not in kept]
        lines += [f"{mark} {n}. {steps[n - 1]}" for n in range(new_start + 1, new_end + 1)]
    return lines, removed


def summary(lines: list[str], removed: list[str]) -> str:
    counts = {"changed": sum(line.startswith("~") for line in lines),
              "added": sum(line.startswith("+") for line in lines), "removed": len(removed)}
    return ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "reordered"


class PlanReviewScreen(ModalScreen[Review | None]):
    """Dismissed with the person's decision, or None to decide later (the plan keeps waiting)."""

    # The decisions first, then the edits: at 80 columns the footer keeps the first ones. The
    # letters are priority keys, run as they come: the keys after an `e` in one burst (a paste
    # over SSH) then reach the field it opens, not the step list. While a field is open they are
    # its letters (check_action).
    BINDINGS = [
        Binding("q", "leave", "Quit", priority=True),
        Binding("a", "approve", "Approve", priority=True),
        Binding("r", "reject", "Reject", priority=True),
        Binding("escape", "back", "Later"),
        Binding("e", "edit", "Edit", priority=True),
        Binding("n", "add", "New", priority=True),
        Binding("d,delete", "delete", "Delete", priority=True),
        Binding("shift+up,K", "move(-1)", "Move", key_display="⇧↑↓", show=False, priority=True),  # F1 lists it: 80 columns
        Binding("shift+down,J", "move(1)", "Move down", show=False, priority=True),
        Binding("p", "policies", "Policy", priority=True),
    ]

    def __init__(self, steps: list[str], draft: list[str] | None = None,
                 policies: dict[str, Any] | None = None, found: str = "") -> None:
        """`draft`: the steps as the person left them when they put the plan off; `policies`:
        the choice policies the planner drafted with them, which the person may edit too; `found`:
        the stored recipe the goal found, when the plan is its steps."""
        super().__init__()
        self.found = found
        self.drafted = dict(policies or {})
        self.policies = dict(self.drafted)
        self.proposed = list(steps)
        self.steps = list(draft if draft is not None else steps)
        self._editing: str | None = None  # "edit", "add" or "reject" while the input is open

    def compose(self) -> ComposeResult:
        with Vertical(id="review-dialog"):
            yield Label("The plan waits for your approval", id="review-title", markup=False)
            yield OptionList(id="review-steps")
            yield Label("", id="review-removed", markup=False)
            yield Label("", id="review-policies", markup=False)
            yield Label("", id="review-problem", markup=False)
            yield Label("", id="review-input-label", markup=False)  # what the open field is for
            # Not selected on focus: a key typed to change a word must not replace the whole step.
            yield TypedInput(id="review-input", select_on_focus=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#review-input", Input).display = False
        self.query_one("#review-input-label", Label).display = False
        self._show()

    def _show(self, highlight: int | None = None) -> None:
        steps = self.query_one("#review-steps", OptionList)
        current = steps.highlighted if highlight is None else highlight
        steps.clear_options()
        lines, removed = changes(self.proposed, self.steps)
        steps.add_options(lines)
        if self.steps:
            steps.highlighted = min(max(current or 0, 0), len(self.steps) - 1)
        edited = f" (edited: {summary(lines, removed)})" if self.steps != self.proposed else ""
        found = f", {self.found}" if self.found else ""  # "…, from recipe cart v1, PRODUCT = Copper Teapot"
        self.query_one("#review-title", Label).update(f"The plan waits for your approval{found}{edited}")
        self.query_one("#review-removed", Label).update(
            "\n".join(f"- {text}" for text in removed) if removed else "")
        edited_rules = " (edited)" if self.policies != self.drafted else ""
        rules = self.query_one("#review-policies", Label)
        rules.display = bool(self.policies)  # a plan that chooses nothing shows no empty line for it
        rules.update(choice_rules(self.policies) + edited_rules if self.policies else "")
        self.set_focus(steps)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self._editing is None or action == "back"  # Esc closes the open field

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

    def _open_input(self, mode: str, value: str, placeholder: str, label: str = "") -> None:
        self._editing = mode
        said = self.query_one("#review-input-label", Label)
        said.update(label)
        said.display = bool(label)
        field = self.query_one("#review-input", Input)
        field.value, field.placeholder, field.display = value, placeholder, True
        field.cursor_position = len(value)
        self.refresh_bindings()  # the footer drops the letters the field now takes
        # At once, not at the loop's next turn as focus() does: a key typed right after e belongs
        # to the field, not to the list.
        self.set_focus(field)

    def action_edit(self) -> None:
        if self.steps and self._editing is None:
            self._open_input("edit", self.steps[self._current], "the step's new text",
                             f"Step {self._current + 1}'s new text (Enter saves, Esc cancels)")

    def action_add(self) -> None:
        if self._editing is None:
            self._open_input("add", "", "what to do", "A new step after the highlighted one (Enter adds, Esc cancels)")

    def action_policies(self) -> None:
        if self._editing is None:
            self._open_input("policies", json.dumps(self.policies, ensure_ascii=False) if self.policies else "",
                             '{"cheapest": {"hard": [{"field": "price", "op": "<=", "value": 50}], "tie_break": ["price_asc"]}}',
                             "Choice policies, as JSON (a policies.json): by name, hard filters, scores, "
                             "tie-breaks, pick. Enter saves, Esc cancels.")

    def action_reject(self) -> None:
        if self._editing is None:
            self._open_input("reject", "", "feedback for the planner",
                             "What should the planner do differently? (Enter rejects, Esc cancels)")

    def action_delete(self) -> None:
        if self.steps and self._editing is None:
            self._apply(f"d {self._current + 1}", self._current)

    def action_move(self, by: int) -> None:
        target = self._current + by
        if self._editing is None and 0 <= target < len(self.steps):
            self._apply(f"m {self._current + 1} {target + 1}", target)

    def action_approve(self) -> None:
        if self._editing is None:
            self.dismiss(Review(approved=True, steps=None if self.steps == self.proposed else self.steps,
                                policies=None if self.policies == self.drafted else self.policies))

    def action_leave(self) -> None:
        """q leaves from here too: the run of this process is stopped, after a yes."""
        self.app.action_quit_here()  # type: ignore[attr-defined]

    def action_back(self) -> None:
        if self._editing is not None:
            self._close_input()
        else:
            self.dismiss(Review(approved=False, steps=self.steps, later=True))

    def _close_input(self) -> None:
        self._editing = None
        self.refresh_bindings()
        self.query_one("#review-input", Input).display = False
        self.query_one("#review-input-label", Label).display = False
        self.set_focus(self.query_one("#review-steps", OptionList))

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text, mode = " ".join(message.value.split()), self._editing
        self._close_input()
        if mode == "reject":
            self.dismiss(Review(approved=False, feedback=text))
        elif text and mode == "edit":
            self._apply(f"{self._current + 1} {text}", self._current)
        elif text and mode == "policies":
            try:
                read = read_policies(message.value, "the policies")
            except PolicyError as exc:
                self.query_one("#review-problem", Label).update(str(exc))
                return
            self.query_one("#review-problem", Label).update("")
            self.policies = {name: policy.model_dump(mode="json") for name, policy in read.items()}
            self._show()
        elif text and mode == "add":
            position = min(self._current + 2, len(self.steps) + 1) if self.steps else 1
            self._apply(f"i {position} {text}", position - 1)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.action_edit()

"""The goal box: type a goal and press Enter; Up and Down walk through the goals given before."""

from __future__ import annotations

from textual.binding import Binding

from tui.widgets.typed_input import TypedInput


class GoalInput(TypedInput):
    BINDINGS = [
        Binding("up", "older", "Older goal", show=False),
        Binding("down", "newer", "Newer goal", show=False),
    ]

    def __init__(self, history: list[str], *, id: str | None = None) -> None:
        super().__init__(placeholder="Type a goal and press Enter (↑ ↓ for earlier goals)", id=id)
        self.history = list(dict.fromkeys(history))  # newest first, no repeats
        self._at = -1  # -1: what the person is typing now
        self._typed = ""

    def remember(self, goal: str) -> None:
        self.history = [goal, *(g for g in self.history if g != goal)]
        self._at = -1

    def action_older(self) -> None:
        if self._at + 1 < len(self.history):
            if self._at == -1:
                self._typed = self.value
            self._at += 1
            self._show(self.history[self._at])

    def action_newer(self) -> None:
        if self._at >= 0:
            self._at -= 1
            self._show(self._typed if self._at == -1 else self.history[self._at])

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)

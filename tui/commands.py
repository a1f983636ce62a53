"""The command palette (Ctrl-P): every action of the dashboard by name."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

# (name, what it does, the action: `screen.` ones are the run screen's)
COMMANDS = [
    ("Approve the plan", "send the approval for the waiting plan", "screen.approve"),
    ("Edit the plan", "change, reorder, add or delete steps before approving", "screen.review"),
    ("Reject the plan", "send feedback to the planner", "screen.reject"),
    ("Answer the open question", "show again a question put off with Esc", "screen.open_decision"),
    ("Pause or resume", "hold the run before its next action, or let it go on", "screen.pause"),
    ("Stop the run", "stop it; it is stored as cancelled", "screen.stop"),
    ("Toggle Set-of-Mark", "show the screenshot with or without element numbers", "screen.marks"),
    ("Enlarge the screen", "the screenshot alone, as large as the window (F10 again: back)", "screen.zoom"),
    ("Sessions", "browse, replay, export or delete stored sessions", "app.sessions"),
]  # Quit is Textual's own entry: it goes through the same confirmation


class GoalbotCommands(Provider):
    def _runner(self, action: str) -> Any:
        if action.startswith("screen."):  # the run screen's, even when another screen is on top
            return partial(self.app.run_action, action.removeprefix("screen."), self.app.run_screen)  # type: ignore[attr-defined]
        return partial(self.app.run_action, action)

    def _available(self) -> list[tuple[str, str, str]]:
        """The commands that mean something now, as the footer's keys do."""
        run_screen = self.app.run_screen  # type: ignore[attr-defined]
        shown = []
        for name, help_text, action in COMMANDS:
            target, _, method = action.partition(".")
            allowed = (run_screen.is_mounted and run_screen.check_action(method, ()) if target == "screen"
                       else self.app.check_action(method, ()))
            if allowed:
                shown.append((name, help_text, action))
        return shown

    async def discover(self) -> Hits:
        for name, help_text, action in self._available():
            yield DiscoveryHit(name, self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in self._available():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._runner(action), help=help_text)

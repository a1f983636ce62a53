"""The run screen: goal, plan, live step log, latest screenshot, status line."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from goalbot.events import Event
from tui.state import DashboardState
from tui.widgets.plan import PlanPanel
from tui.widgets.screenshot import ScreenshotPanel
from tui.widgets.status import StatusLine
from tui.widgets.steplog import StepLog


class RunScreen(Screen[None]):
    def __init__(self, goal: str) -> None:
        super().__init__()
        self.goal = goal
        self.state = DashboardState(goal=goal)

    def compose(self) -> ComposeResult:
        yield Static(f"Goal: {self.goal}", id="goal")
        with Horizontal(id="panes"):
            yield PlanPanel(id="plan")
            yield StepLog(id="log", wrap=True, markup=False, max_lines=5_000, min_width=20)
            yield ScreenshotPanel(id="screenshot")
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#log", StepLog).border_title = "Steps"
        self.query_one("#screenshot", ScreenshotPanel).border_title = "Browser"
        self._redraw()

    def apply(self, event: Event) -> None:
        self.state.apply(event)
        self.query_one("#log", StepLog).add(event)
        self._redraw()

    def show_screenshot(self, content: bytes) -> None:
        self.query_one("#screenshot", ScreenshotPanel).show(content, self.state.page)

    def _redraw(self) -> None:
        self.query_one("#plan", PlanPanel).show(self.state)
        self.query_one("#status", StatusLine).show(self.state)
        if self.state.url:
            self.query_one("#goal", Static).update(f"Goal: {self.goal}   [dim]{self.state.url}[/]")

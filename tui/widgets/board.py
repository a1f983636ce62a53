"""The panels a session is drawn on — plan, step log, screenshot, status — fed with events. The
run screen feeds it live, the replay screen from the store: the same events draw the same board."""

from __future__ import annotations

import time
from typing import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer

from goalbot.events import Event, utc_now
from goalbot.operators.som import wireframe
from tui.state import WIREFRAME, DashboardState
from tui.widgets.plan import PlanPanel
from tui.widgets.screenshot import ScreenshotPanel
from tui.widgets.status import StatusLine
from tui.widgets.steplog import StepLog

PictureLoader = Callable[[str], "bytes | None"]


class Board(Vertical):
    # A new picture at most this often: a slow SSH link stays responsive while the agent races on.
    PICTURE_INTERVAL_S = 0.5
    # Below NARROW columns the three panels do not fit side by side: the plan goes above the log
    # and the screen; below TINY the screen is shown only when the person enlarges it.
    NARROW, TINY = 110, 60

    def __init__(self, load_picture: PictureLoader, *, live: bool = True, id: str | None = None) -> None:
        """`live`: the events are a run's as it goes, so time waited goes on between them (a
        replay's stands still at the event shown)."""
        super().__init__(id=id)
        self.load_picture = load_picture
        self.live = live
        self.state = DashboardState()
        self.with_marks = False
        self._drawn_picture: tuple[str | None, bool] = (None, False)
        self._last_picture_at = 0.0
        self._picture_later: Timer | None = None  # set while a skipped picture waits its turn

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield PlanPanel(id="plan")
            with Horizontal(id="work"):
                yield StepLog(id="log")
                yield ScreenshotPanel(id="screenshot")
        yield StatusLine(id="status")

    def on_mount(self) -> None:
        self.query_one("#log", StepLog).border_title = "Steps"
        self.redraw()
        if self.live:  # the planner's wait counts up between events, as a person watches it
            self.set_interval(1.0, self._waited_on)

    def _waited_on(self) -> None:
        if not self.state.plan and self.state.started_at is not None and not self.state.finished:
            self.query_one("#plan", PlanPanel).show(self.state, self._waited())

    def _waited(self) -> float | None:
        """Seconds since the run started: to now while live, to the newest event in a replay."""
        started, latest = self.state.started_at, self.state.latest_at
        if started is None or latest is None:
            return None
        return ((utc_now() if self.live else latest) - started).total_seconds()

    def reset(self) -> None:
        self.state = DashboardState()
        self.query_one("#log", StepLog).clear()
        self._drawn_picture = (None, False)
        self.query_one("#screenshot", ScreenshotPanel).clear()
        self.redraw()

    def apply(self, events: list[Event]) -> None:
        for event in events:
            self.state.apply(event)
        self.query_one("#log", StepLog).add(events)
        self.redraw()

    def redraw(self) -> None:
        self._fit_width()  # a resize missed while the board was not on screen is caught here
        self.query_one("#plan", PlanPanel).show(self.state, self._waited())
        self.query_one("#status", StatusLine).show(self.state)
        self._picture_if_due()

    def _picture_turn(self) -> None:
        self._picture_later = None
        self._picture_if_due()

    def redraw_picture_now(self) -> None:
        self._picture_if_due(force=True)

    def on_resize(self) -> None:
        self._fit_width()

    def _fit_width(self) -> None:
        width = self.size.width
        if width:  # not laid out yet: no width to judge by
            self.set_class(width < self.NARROW, "narrow")
            self.set_class(width < self.TINY, "tiny")

    def toggle_zoom(self) -> bool:
        """The screen panel alone, as large as the board: Set-of-Mark boxes become readable."""
        self.toggle_class("zoomed")
        self._drawn_picture = (None, False)  # drawn again at its new size
        self.call_after_refresh(self.redraw_picture_now)
        return self.has_class("zoomed")

    def toggle_marks(self) -> bool:
        self.with_marks = not self.with_marks
        self._picture_if_due(force=True)
        return self.with_marks

    def _picture_if_due(self, force: bool = False) -> None:
        wanted = (self.state.screenshot_id, self.with_marks)
        if wanted[0] is None or wanted == self._drawn_picture:
            return
        wait = self._last_picture_at + self.PICTURE_INTERVAL_S - time.monotonic()
        if not force and wait > 0:
            # The newest picture is drawn when its turn comes; the ones in between are skipped.
            if self._picture_later is None:
                self._picture_later = self.set_timer(wait, self._picture_turn)
            return
        marks = self.state.marks if self.with_marks else None
        content: bytes | None
        if wanted[0].startswith(WIREFRAME):  # no picture was kept: the boxes are all there is
            content, marks = wireframe(self.state.marks, self.state.viewport_width), None
        else:
            content = self.load_picture(wanted[0])
        if content is None:
            return
        self._drawn_picture, self._last_picture_at = wanted, time.monotonic()
        self.query_one("#screenshot", ScreenshotPanel).show(
            content, self.state.page, marks, self.state.viewport_width)

"""The live step log: actions, results and verdicts as they happen.

Virtualised: it keeps one short line of text per event and draws only the rows on screen, so a
10,000-event session costs a list of strings, not 10,000 rendered lines.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from goalbot.text import eventfmt
from goalbot.text.severity import Severity, severity
from goalbot.events import Event, EventType as T

# The 16 ANSI colours by name: a terminal of 16 colours draws them in its own shades, and routine
# lines stay dim instead of borrowing a warning's colour.
STYLES = {
    Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.SUCCESS: "green",
    Severity.NOTICE: "cyan", Severity.ROUTINE: "dim",
}
# Chatter that the status line already sums up stays out of the log.
QUIET = {T.ACT_START, T.LLM_CALL, T.GOAL_STATUS, T.OBSERVATION}


class StepLog(ScrollView, can_focus=True):
    DEFAULT_CSS = "StepLog { overflow-x: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[tuple[str, T, str, Severity]] = []  # time, type, summary, severity
        self._widest = 0

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def plain(self) -> list[str]:
        """The rows as text, oldest first."""
        return [f"{time} {kind.value:<16} {summary}" for time, kind, summary, _ in self._lines]

    def add(self, events: list[Event]) -> None:
        following = self.scroll_y >= self.max_scroll_y
        for event in events:
            if event.type in QUIET:
                continue
            summary = " ".join(eventfmt.summary(event).split())  # one row per event
            self._lines.append((f"{event.ts.astimezone():%H:%M:%S}", event.type, summary, severity(event)))
            self._widest = max(self._widest, len(summary) + 23)
        self.virtual_size = Size(self._widest, len(self._lines))
        if following:  # after the next layout, which knows the new height
            self.call_after_refresh(self.scroll_end, animate=False, x_axis=False)
        self.refresh()

    def clear(self) -> None:
        self._lines, self._widest = [], 0
        self.virtual_size = Size(0, 0)
        self.scroll_home(animate=False)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        if index >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        time, kind, summary, weight = self._lines[index]
        line = Text(no_wrap=True, end="")
        line.append(f"{time} ", style="dim")
        line.append(f"{kind.value:<16} ", style=STYLES[weight])
        line.append(summary, style="dim" if weight is Severity.ROUTINE else "")
        segments = [Segment(s.text, self.rich_style + s.style if s.style else self.rich_style)
                    for s in line.render(self.app.console)]
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, self.rich_style)

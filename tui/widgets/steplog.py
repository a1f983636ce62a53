"""The live step log: actions, results and verdicts as they happen.

Virtualised: it keeps one short line of text per event and draws only the rows on screen, so a
10,000-event session costs a list of strings, not 10,000 rendered lines. A row cut at the panel's
edge is read whole with Enter; `/` finds text in the log.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from goalbot.events import Event, EventType as T
from goalbot.text import eventfmt
from goalbot.text.severity import Severity, severity
from tui.screens.event_detail import EventScreen
from tui.screens.find import FindScreen

# The 16 ANSI colours by name: a terminal of 16 colours draws them in its own shades, and routine
# lines stay dim instead of borrowing a warning's colour.
STYLES = {
    Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.SUCCESS: "green",
    Severity.NOTICE: "cyan", Severity.ROUTINE: "dim",
}
# Chatter that the status line already sums up stays out of the log.
QUIET = {T.ACT_START, T.LLM_CALL, T.GOAL_STATUS, T.OBSERVATION}
PREFIX = 26  # the time, the type and the gaps before a row's summary
# A panel narrower than this draws rows without their time and with the type in a short word, so
# the message keeps most of the width (Enter still shows the event whole).
NARROW = 50
SHORT_PREFIX = 12
SHORT = {T.VALIDATE_FAIL: "INVALID", T.PLAN_PROPOSED: "PLAN", T.PLAN_APPROVED: "PLAN_OK",
         T.PLAN_REJECTED: "PLAN_NO", T.APPROVAL_REQUEST: "GO?", T.APPROVAL_GRANTED: "GO",
         T.APPROVAL_DENIED: "NOT_GO"}


class Row(NamedTuple):
    time: str
    kind: T
    summary: str
    weight: Severity
    event: Event


class StepLog(ScrollView, can_focus=True):
    """Rows with a cursor: it stays on the newest row until the person moves it."""

    COMPONENT_CLASSES = {"steplog--cursor", "steplog--match"}
    DEFAULT_CSS = """
    StepLog { overflow-x: auto; }
    StepLog > .steplog--cursor { background: $block-cursor-blurred-background; }
    StepLog:focus > .steplog--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    StepLog > .steplog--match { background: $warning 40%; }
    """
    BINDINGS = [
        Binding("enter", "open", "Event"),
        Binding("slash", "find", "Find"),
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "first", show=False),
        Binding("end", "last", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: list[Row] = []
        self._widest = 0
        self.cursor = -1  # the selected row; -1 while there is none
        self.searched = ""  # the last text looked for, marked in the rows

    @property
    def line_count(self) -> int:
        return len(self._rows)

    @property
    def selected(self) -> Event | None:
        return self._rows[self.cursor].event if self._rows else None

    def plain(self) -> list[str]:
        """The rows as text, oldest first."""
        return [self._text(row) for row in self._rows]

    @staticmethod
    def _text(row: Row) -> str:
        return f"{row.time} {row.kind.value:<16} {row.summary}"

    def add(self, events: list[Event]) -> None:
        following = self.scroll_y >= self.max_scroll_y
        on_newest = self.cursor == len(self._rows) - 1
        for event in events:
            if event.type in QUIET:
                continue
            # One row per event, and nothing in it that a terminal would take as a command.
            summary = " ".join(eventfmt.printable(eventfmt.summary(event)).split())
            self._rows.append(Row(f"{event.ts.astimezone():%H:%M:%S}", event.type, summary,
                                  severity(event), event))
            self._widest = max(self._widest, len(summary))
        if on_newest:
            self.cursor = len(self._rows) - 1
        self._size_rows()
        if following:  # after the next layout, which knows the new height
            self.call_after_refresh(self.scroll_end, animate=False, x_axis=False)
        self.refresh()

    @property
    def _narrow(self) -> bool:
        # The panel's own width, not what its scrollbars leave: rows that changed with a scrollbar
        # would change the scrollbars, and the layout would never settle.
        return self.size.width < NARROW

    def _size_rows(self) -> None:
        prefix = SHORT_PREFIX if self._narrow else PREFIX
        self.virtual_size = Size(self._widest + prefix, len(self._rows))

    def on_resize(self) -> None:
        self._size_rows()

    def clear(self) -> None:
        self._rows, self._widest, self.cursor = [], 0, -1
        self.virtual_size = Size(0, 0)
        self.scroll_home(animate=False)
        self.refresh()

    # -- moving, opening, finding ----------------------------------------------------------------

    def select(self, index: int) -> None:
        if not self._rows:
            return
        self.cursor = max(0, min(index, len(self._rows) - 1))
        self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, force=True, x_axis=False)
        self.refresh()

    def action_move(self, by: int) -> None:
        self.select(self.cursor + by)

    def action_first(self) -> None:
        self.select(0)

    def action_last(self) -> None:
        self.select(len(self._rows) - 1)

    def action_page(self, by: int) -> None:
        self.select(self.cursor + by * max(1, self.scrollable_content_region.height - 1))

    def action_open(self) -> None:
        if self.selected is not None:
            self.app.push_screen(EventScreen(self.selected))

    def action_find(self) -> None:
        self.app.push_screen(FindScreen(self.searched), self.find)

    def find(self, text: str | None) -> None:
        """Selects the next row after the cursor that holds `text` (any case), from the top again
        after the last."""
        if not text:
            return
        self.searched = text
        wanted = text.casefold()
        count = len(self._rows)
        for offset in range(1, count + 1):
            index = (self.cursor + offset) % count
            if wanted in self._text(self._rows[index]).casefold():
                self.select(index)
                return
        self.refresh()
        self.notify(f"Not in the log: {text}", severity="warning")

    # -- drawing ---------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        if index >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        row = self._rows[index]
        line = Text(no_wrap=True, end="")
        if self._narrow:
            line.append(f"{SHORT.get(row.kind, row.kind.value):<11.11} ", style=STYLES[row.weight])
        else:
            line.append(f"{row.time} ", style="dim")
            line.append(f"{row.kind.value:<16} ", style=STYLES[row.weight])
        line.append(row.summary, style="dim" if row.weight is Severity.ROUTINE else "")
        if self.searched:
            line.highlight_words([self.searched], self.get_component_rich_style("steplog--match"),
                                 case_sensitive=False)
        base, over = self.rich_style, Style()
        if index == self.cursor:  # the cursor's colours win over the row's: it reads on any theme
            over = self.get_component_rich_style("steplog--cursor")
            base += over
        segments = [Segment(s.text, base + s.style + over if s.style else base) for s in line.render(self.app.console)]
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, base)

"""A stored session redrawn from its events on the same board as a live run: play and pause,
speed, event by event or step by step, jump to a step; the screenshot of each moment."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textual import work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from goalbot.events import Event, EventType
from storage import queries
from storage.db import connect
from tui.screens.jump import JumpScreen
from tui.widgets.board import Board
from tui.widgets.keys_footer import KeysFooter

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
LOAD_CHUNK = 2_000  # events read from the store at a time, off the UI thread
LONGEST_PAUSE_S = 2.0  # a long wait in the recording plays as at most this long


class ReplayScreen(Screen[None]):
    class Read(Message):
        """A chunk of the session read from the store (empty and `last` when the reading is over)."""

        def __init__(self, events: list[Event], last: bool = False) -> None:
            super().__init__()
            self.events = events
            self.last = last

    # priority: the step log must not take the arrows and Home / End for scrolling.
    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("space", "play", "Play", priority=True),
        Binding("n,down", "step(1)", "Next", priority=True),
        Binding("b,up", "step(-1)", "Previous step", show=False, priority=True),
        Binding("right,l", "event(1)", "Next event", show=False, priority=True),
        Binding("left,h", "event(-1)", "Previous event", show=False, priority=True),
        Binding("plus,equals_sign", "speed(1)", "Faster", show=False),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("g", "jump", "Jump"),
        Binding("home", "goto_start", "Start", show=False, priority=True),
        Binding("end", "goto_end", "End", show=False, priority=True),
        Binding("m", "marks", "Marks", show=False),
        Binding("f10,z", "zoom", "Enlarge screen", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, db_path: Path, session_id: str) -> None:
        super().__init__()
        self.db_path = db_path
        self.session_id = session_id
        self.events: list[Event] = []
        self.position = 0  # how many events are drawn
        self.speed = 4.0
        self.playing = False
        self._timer: Timer | None = None
        self.ready = False  # every event is read
        self._db = connect(db_path, create=False)

    @property
    def board(self) -> Board:
        return self.query_one(Board)

    def compose(self) -> ComposeResult:
        yield Static("", id="replay-head", markup=False)
        yield Board(self._picture, live=False, id="board")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self._head()
        self._load()
        self.board.query_one("#log").focus()

    @work(thread=True, exclusive=True, group="replay-load")
    def _load(self) -> None:
        """Reads the session in chunks on a thread of its own: a long session opens at once and
        fills in while the person looks."""
        db = connect(self.db_path, create=False)
        try:
            after = 0
            while not get_current_worker().is_cancelled:  # the person may leave before the end
                events = queries.session_events(db, self.session_id, after, LOAD_CHUNK)
                if events:
                    after = events[-1].seq
                    self.post_message(self.Read(events))  # never waits for the screen to take it
                if len(events) < LOAD_CHUNK:
                    break
        except sqlite3.Error as exc:
            self.app.call_from_thread(self.notify, f"Could not read all of the session: {exc}", severity="error")
        finally:
            db.close()
        self.post_message(self.Read([], last=True))

    def on_replay_screen_read(self, message: Read) -> None:
        self.events.extend(message.events)
        if message.last:
            self.ready = True
            if self.position == 0 and not self.playing:
                self.goto(self._opening())
        self._head()

    def on_unmount(self) -> None:
        self._db.close()

    def _picture(self, artifact_id: str) -> bytes | None:
        try:
            return queries.artifact_content(self._db, artifact_id)
        except sqlite3.Error:
            return None

    def _opening(self) -> int:
        """A replay opens where the story starts: the goal and the plan approved, ready to play."""
        for wanted in (EventType.PLAN_APPROVED, EventType.PLAN_PROPOSED):
            found = next((i for i, e in enumerate(self.events) if e.type is wanted), None)
            if found is not None:
                return found + 1
        return min(1, len(self.events))

    @property
    def step_starts(self) -> list[int]:
        return [i for i, e in enumerate(self.events) if e.type is EventType.STEP_START]

    def goto(self, position: int) -> None:
        position = max(0, min(position, len(self.events)))
        if position < self.position:
            self.board.reset()
            self.board.apply(self.events[:position])
        elif position > self.position:
            self.board.apply(self.events[self.position:position])
        self.position = position
        self.board.redraw_picture_now()
        self._head()

    def _head(self) -> None:
        moment = self.events[self.position - 1] if self.position else None
        narrow = self.size.width < KeysFooter.NARROW  # the session's id carries its day: the time alone will do
        when = f"{moment.ts.astimezone():{'%H:%M:%S' if narrow else '%Y-%m-%d %H:%M:%S'}}" if moment \
            else ("start" if narrow else "before the start")
        state = ("▶ playing" if self.playing else "❚❚ paused") if self.ready else "reading the store…"
        # What the keys change first; the id last, and short enough to stay at 80 columns.
        self.query_one("#replay-head", Static).update(
            f"{state} {self.speed:g}× · event {self.position}/{len(self.events)} · step "
            f"{self.board.state.step} · {when} · {'' if narrow else 'replay of '}{self.session_id}")

    def on_resize(self) -> None:
        if self.is_mounted:
            self._head()

    def action_event(self, by: int) -> None:
        self._halt()
        self.goto(self.position + by)

    def action_step(self, by: int) -> None:
        self._halt()
        starts = [i + 1 for i in self.step_starts]  # the position right after a step began
        if by > 0:
            later = [p for p in starts if p > self.position]
            self.goto(later[0] if later else len(self.events))
        else:
            earlier = [p for p in starts if p < self.position]
            self.goto(earlier[-1] if earlier else 0)

    def action_jump(self) -> None:
        numbers = sorted({step for i in self.step_starts if (step := self.events[i].step)})
        if not numbers:
            self.notify("This session has no steps to jump to", severity="warning")
            return

        def jump(step: int | None) -> None:
            if step is None:
                return
            for i in self.step_starts:
                if self.events[i].step == step:
                    self._halt()
                    self.goto(i + 1)
                    return
            self.notify(f"There is no step {step} (steps {numbers[0]}–{numbers[-1]})", severity="warning")

        self.app.push_screen(JumpScreen(numbers[0], numbers[-1]), jump)

    def action_goto_start(self) -> None:
        self._halt()
        self.goto(0)

    def action_goto_end(self) -> None:
        self._halt()
        self.goto(len(self.events))

    def action_speed(self, by: int) -> None:
        index = SPEEDS.index(self.speed) + by
        self.speed = SPEEDS[max(0, min(index, len(SPEEDS) - 1))]
        self._head()

    def action_play(self) -> None:
        if self.playing:
            self._halt()
        else:
            if self.position >= len(self.events):
                self.goto(0)
            self.playing = True
            self._schedule()
        self._head()

    def action_zoom(self) -> None:
        self.board.toggle_zoom()

    def action_marks(self) -> None:
        self.board.toggle_marks()

    def action_back(self) -> None:
        """Back to where the replay was opened from; opened directly (`goalbot replay`), back to
        the list of sessions it is one of."""
        self._halt()
        opened_directly = len(self.app.screen_stack) <= 2
        self.app.pop_screen()
        if opened_directly:
            self.app.action_sessions()  # type: ignore[attr-defined]

    def _halt(self) -> None:
        self.playing = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _schedule(self) -> None:
        if not self.playing or self.position >= len(self.events):
            self._halt()
            self._head()
            return
        gap = 0.0
        if self.position:
            gap = (self.events[self.position].ts - self.events[self.position - 1].ts).total_seconds()
        delay = min(max(gap, 0.0), LONGEST_PAUSE_S) / self.speed
        self._timer = self.set_timer(max(delay, 0.005), self._tick)  # Textual's timers refuse 0

    def _tick(self) -> None:
        self.goto(self.position + 1)
        self._schedule()

"""The stored sessions: filter by status and text, open one (replay, or follow it live while it
runs), delete it, export it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label

from goalbot.events import RunStatus
from storage import queries, recipes
from storage.db import StoreError, opened
from storage.rows import SessionRow
from tui.exporting import export_session
from tui.palette import colours_of
from tui.screens.consent import ConsentScreen
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.typed_input import TypedInput

STATUSES = (None, *(status.value for status in RunStatus))
# Rows drawn at most: the table measures every row it holds, and a person filters rather than
# scrolls through hundreds.
SHOWN = 200
# The recipe before the figures: at 160 columns it is still on screen.
COLUMNS = (("session", 20), ("status", 11), ("goal", 36), ("recipe", 22), ("why it ended", 40), ("steps", 5),
           ("calls", 5), ("tokens", 9), ("cost", 9), ("started", 19))


class Listed(NamedTuple):
    row: SessionRow
    recipe: str  # its part in a recipe, in a few words: "rerun darkmode v1"


class SessionsScreen(Screen[None]):
    class Found(Message):
        """The answer to search number `asked`, from the searching thread. A screen that was left
        meanwhile never gets it."""

        def __init__(self, asked: int, rows: list[Listed]) -> None:
            super().__init__()
            self.asked = asked
            self.rows = rows

    BINDINGS = [
        # priority: the table's own Enter would hide this one from the footer
        Binding("enter", "open", "Open", show=True, priority=True),
        Binding("f", "cycle_status", "Status filter"),
        Binding("slash", "focus_filter", "Search"),
        Binding("x", "export", "Export"),
        Binding("d", "delete", "Delete"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, db_path: Path, export_dir: Path, status: str | None = None) -> None:
        super().__init__()
        self.db_path = db_path
        self.export_dir = export_dir
        self.status = status
        self.rows: dict[str, Listed] = {}
        self._asked = 0  # which search the table should show: an older answer is dropped
        self._shown = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="sessions-filters"):
            yield TypedInput(placeholder="filter by goal, id or reason (/)", id="sessions-filter")
            yield Label("status: all", id="sessions-status")
        yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield Label("", id="sessions-recipe")
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # Fixed widths: the table need not measure every cell of every row on each search.
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        self.refresh_rows()
        table.focus()

    def on_screen_resume(self) -> None:
        self.refresh_rows()

    def refresh_rows(self) -> None:
        """Searches the store in a thread: a big store or a busy one never holds up typing."""
        self._asked += 1
        self._search(self._asked, self.query_one("#sessions-filter", Input).value.strip(), self.status)

    @work(thread=True, exclusive=True, group="sessions-search")
    def _search(self, asked: int, text: str, status: str | None) -> None:
        try:
            with opened(self.db_path, create=False) as db:
                found = queries.find_sessions(db, text, status, limit=SHOWN)
                parts = recipes.of_sessions(db, [row.id for row in found])
        except (StoreError, sqlite3.Error) as exc:
            self.app.call_from_thread(self.notify, f"Cannot read the sessions: {exc}", severity="error")
            return
        self.post_message(self.Found(asked, [Listed(row, parts.get(row.id, "")) for row in found]))

    @property
    def ready(self) -> bool:
        """The table shows the answer to the newest search."""
        return self._shown == self._asked

    def on_sessions_screen_found(self, message: Found) -> None:
        asked, found = message.asked, message.rows
        if asked != self._asked:
            return
        self._shown = asked
        table = self.query_one(DataTable)
        table.clear()
        self.rows = {listed.row.id: listed for listed in found}
        for row, recipe in found:
            cost = "–" if row.cost_usd is None else f"${row.cost_usd:.4f}"
            status = Text(row.status, style=colours_of(row.status).text)
            table.add_row(row.id, status, row.goal, recipe, row.finish_reason or "", row.steps, row.model_calls,
                          f"{row.tokens:,}", cost, (row.started_at or "")[:19].replace("T", " "), key=row.id)
        self.query_one("#sessions-status", Label).update(
            f"status: {self.status or 'all'} · {len(found)} shown"
            + (" (the newest: type to narrow)" if len(found) == SHOWN else ""))

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        listed = self.rows.get(str(message.row_key.value)) if message.row_key else None
        recipe = listed.recipe.split()[1] if listed and listed.recipe else None
        if recipe is None:
            self.query_one("#sessions-recipe", Label).update("")
        else:
            self._recipe_metrics(recipe)

    @work(thread=True, exclusive=True, group="sessions-recipe")
    def _recipe_metrics(self, name: str) -> None:
        """Seed 002 §12's figures of the highlighted session's recipe, read off the UI thread."""
        try:
            with opened(self.db_path, create=False) as db:
                line = f"recipe {name} · {recipes.metrics(db, name).line()}"
        except (StoreError, sqlite3.Error) as exc:
            line = f"recipe {name}: cannot read its figures ({exc})"
        self.app.call_from_thread(self.query_one("#sessions-recipe", Label).update, line)

    def on_input_changed(self, message: Input.Changed) -> None:
        self.refresh_rows()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def _selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0:
            return None
        return str(table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value)

    def action_cycle_status(self) -> None:
        self.status = STATUSES[(STATUSES.index(self.status) + 1) % len(STATUSES)]
        self.refresh_rows()

    def action_focus_filter(self) -> None:
        self.query_one("#sessions-filter", Input).focus()

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        session_id = self._selected()
        if session_id is not None:
            self.app.open_session(session_id, running=self.rows[session_id].row.running)  # type: ignore[attr-defined]

    def action_export(self) -> None:
        session_id = self._selected()
        if session_id is not None:
            self._export(session_id)

    @work(thread=True, group="sessions-export")
    def _export(self, session_id: str) -> None:
        try:
            with opened(self.db_path, create=False) as db:
                jsonl, markdown = export_session(db, session_id, self.export_dir)
        except (StoreError, sqlite3.Error, OSError, LookupError) as exc:
            self.app.call_from_thread(self.notify, f"Export failed: {exc}", severity="error")
            return
        self.app.call_from_thread(self.notify, f"Exported {jsonl} and {markdown}", timeout=10)

    def action_delete(self) -> None:
        session_id = self._selected()
        if session_id is None:
            return
        if self.rows[session_id].row.running:
            self.notify("That session is running: stop it first", severity="warning")
            return

        def delete(sure: bool | None) -> None:
            if not sure:
                return
            try:
                with opened(self.db_path, create=False) as db:
                    queries.delete_session(db, session_id)
            except (StoreError, sqlite3.Error) as exc:
                self.notify(f"Not deleted: {exc}", severity="error")
                return
            self.notify(f"Deleted {session_id}")
            self.refresh_rows()

        goal = self.rows[session_id].row.goal
        self.app.push_screen(ConsentScreen.confirm(f"Delete session {session_id} ({goal}) with its events "
                                                   "and screenshots? This cannot be undone."), delete)

    def action_back(self) -> None:
        """Esc leaves the search for the table, and this screen for the one it was opened from;
        opened directly, there is nothing behind it: q quits."""
        if self.query_one("#sessions-filter", Input).has_focus:
            self.query_one(DataTable).focus()
        elif len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":  # in the search, Enter searches
            return not self.query_one("#sessions-filter", Input).has_focus
        if action == "back":
            return len(self.app.screen_stack) > 2 or self.query_one("#sessions-filter", Input).has_focus
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # Back means something else in the search than in the table

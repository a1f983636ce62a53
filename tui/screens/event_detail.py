"""One event of the log in full: its line unwrapped from the panel's edge, and all of its data."""

from __future__ import annotations

import json

from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from goalbot.events import Event, EventType
from goalbot.payloads import ChosenData
from goalbot.text.eventfmt import choice_table, printable, summary
from tui.widgets.keys_footer import KeysFooter


class EventScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter,q", "close", "Close")]

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event

    def compose(self) -> ComposeResult:
        event = self.event
        step = f" · step {event.step}" if event.step is not None else ""
        with Vertical(id="event-dialog"):
            yield Label(f"{event.type.value} · {event.actor.value.lower()}{step} · "
                        f"{event.ts.astimezone():%Y-%m-%d %H:%M:%S} · #{event.seq}", id="event-title")
            with VerticalScroll(id="event-body"):
                # Page and model text is shown as text: no markup, no terminal escapes.
                yield Static(Text(printable(summary(event))), id="event-summary")
                if event.type is EventType.CHOSEN:
                    yield Static(_choice_table(event.data_of(ChosenData)), id="event-choice")
                data = json.loads(printable(json.dumps(event.data, ensure_ascii=False)))
                pretty = JSON.from_data(data, indent=2).text
                pretty.no_wrap, pretty.overflow = False, "fold"  # a long value is read whole, wrapped
                yield Static(pretty, id="event-data")
            yield Label("↑ ↓ scroll · Esc or Enter closes", id="event-keys")
        yield KeysFooter()  # the dialog's own keys, not those of the screen beneath

    def on_mount(self) -> None:
        self.query_one("#event-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def _choice_table(chosen: ChosenData) -> Table:
    """Why the one was taken: every candidate, the rule that dropped it or its score, the pick marked."""
    table = Table(title=f"{chosen.policy}: {chosen.rules}", title_justify="left", expand=True)
    table.add_column("", width=1)
    table.add_column("candidate", ratio=3)
    table.add_column("why", ratio=2)
    for mark, words, why in choice_table(chosen):
        table.add_row(mark, Text(printable(words)), Text(printable(why)),
                      style="bold" if mark else ("dim" if why.startswith("dropped") else ""))
    if chosen.tie_break:
        table.caption = f"a tie settled by {chosen.tie_break}"
    return table

"""The goalbot dashboard: a run (live in this process, or attached through the store), the stored
sessions and their replays, on one keyboard-first Textual app."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from textual.app import App
from textual.binding import Binding

from goalbot.agents.session import SessionResult
from tui.commands import GoalbotCommands
from tui.screens.replay import ReplayScreen
from tui.screens.run import LiveRun, RunScreen, Starter
from tui.screens.sessions import SessionsScreen

Opening = Literal["run", "sessions", "replay", "attach"]


class GoalbotApp(App[None]):
    CSS_PATH = "goalbot.tcss"
    TITLE = "goalbot"
    COMMANDS = App.COMMANDS | {GoalbotCommands}
    BINDINGS = [
        Binding("f1", "keys", "Keys"),
        Binding("f2", "sessions", "Sessions"),
        Binding("ctrl+c", "stop", "Stop", show=False, priority=True),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sessions":  # not offered where it already is
            return self.db_path is not None and not isinstance(self.screen, SessionsScreen)
        return True

    def __init__(
        self,
        *,
        db_path: Path | None = None,
        live: LiveRun | None = None,
        starter: Starter | None = None,
        history: list[str] | None = None,
        session_id: str | None = None,
        opening: Opening = "run",
        export_dir: Path | None = None,
        status: str | None = None,
    ) -> None:
        """status: the sessions screen's first status filter."""
        super().__init__()
        self.db_path = db_path
        self.session_id = session_id
        self.opening = opening
        self.export_dir = export_dir or Path.cwd()
        self.status = status
        follow = (db_path, session_id) if opening == "attach" and db_path and session_id else None
        self.run_screen = RunScreen(starter=starter, history=history, live=live, follow=follow)

    @property
    def result(self) -> SessionResult | None:
        return self.run_screen.result

    def on_mount(self) -> None:
        if self.opening == "replay" and self.db_path and self.session_id:
            self.push_screen(ReplayScreen(self.db_path, self.session_id))
            return
        if self.opening == "sessions":
            self.action_sessions()
        else:
            self.push_screen(self.run_screen)

    def open_session(self, session_id: str, running: bool) -> None:
        """A running session is followed live; a finished one is replayed."""
        assert self.db_path is not None
        if running:
            if self.run_screen.running_here:
                self.notify("A run of this dashboard is going on: it stays on this screen", severity="warning")
                return
            self.run_screen.follow_store(self.db_path, session_id)
            if self.run_screen in self.screen_stack:
                while self.screen is not self.run_screen:
                    self.pop_screen()
            else:
                self.push_screen(self.run_screen)
        else:
            self.push_screen(ReplayScreen(self.db_path, session_id))

    def action_keys(self) -> None:
        """F1: every key of the screen on top, with what it does, beside it (F1 again hides it)."""
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_sessions(self) -> None:
        if self.db_path is None:
            self.notify("No store to read sessions from", severity="warning")
        elif not isinstance(self.screen, SessionsScreen):
            self.push_screen(SessionsScreen(self.db_path, self.export_dir, self.status))

    async def action_quit(self) -> None:
        """Ctrl-Q, or the palette's quit: a run of this process is stopped first, never orphaned."""
        if self.run_screen.is_mounted:
            self.run_screen.action_quit_dashboard()
        else:
            self.exit()

    def action_stop(self) -> None:
        """Ctrl-C stops this process's run (and the dashboard stays to show how it ended);
        with nothing running here it leaves, and an attached run goes on."""
        if self.run_screen.running_here:
            self.run_screen.action_stop()
        else:
            self.exit()

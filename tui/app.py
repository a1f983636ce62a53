"""The goalbot dashboard: a run (live in this process, or attached through the store), the stored
sessions and their replays, on one keyboard-first Textual app."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Literal

from textual.app import App
from textual.binding import Binding
from textual.theme import Theme

from goalbot.agents.session import SessionResult
from tui.commands import GoalbotCommands
from tui.screens.replay import ReplayScreen
from tui.screens.run import LiveRun, RunScreen, Starter
from tui.screens.sessions import SessionsScreen
from tui.themes import SIXTEEN_COLOURS

Opening = Literal["run", "sessions", "replay", "attach"]
ThemeKeeper = Callable[[str], "str | None"]  # keeps a chosen theme; the problem if it could not


class GoalbotApp(App[None]):
    CSS_PATH = "goalbot.tcss"
    TITLE = "goalbot"
    COMMANDS = App.COMMANDS | {GoalbotCommands}
    BINDINGS = [
        Binding("f1", "keys", "Keys"),
        Binding("f2", "sessions", "Sessions"),
        Binding("ctrl+c", "stop", "Stop", show=False, priority=True),
        # Shown where q cannot quit, because q is typed into the goal; it quits as q does.
        Binding("ctrl+q", "quit_here", "Quit", priority=True),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sessions":  # not offered where it already is
            return self.db_path is not None and not isinstance(self.screen, SessionsScreen)
        if action == "quit_here":
            return self.screen is self.run_screen and self.run_screen.typing_goal()
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
        theme: str | None = None,
        remember_theme: ThemeKeeper | None = None,
    ) -> None:
        """status: the sessions screen's first status filter; theme: the one chosen last time,
        and remember_theme keeps the next one chosen."""
        super().__init__()
        self.register_theme(SIXTEEN_COLOURS)
        self._theme_problem = ""
        if theme is not None and theme in self.available_themes:
            self.theme = theme
        elif theme is not None:
            self._theme_problem = f"No theme called {theme!r}: the default one is used"
        if theme is None and self.console.color_system in ("standard", "windows"):  # 16 colours
            self.theme = SIXTEEN_COLOURS.name
        self.remember_theme = remember_theme
        self._kept_theme = self.theme
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
        if self._theme_problem:
            self.notify(self._theme_problem, severity="warning")
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        if self.opening == "replay" and self.db_path and self.session_id:
            self.push_screen(ReplayScreen(self.db_path, self.session_id))
            return
        if self.opening == "sessions":
            self.action_sessions()
        else:
            self.push_screen(self.run_screen)

    def _keep_theme(self, theme: Theme) -> None:
        if self.remember_theme is not None and theme.name != self._kept_theme:
            self._kept_theme = theme.name
            self.run_worker(lambda: self._write_theme(theme.name), thread=True, group="theme", exclusive=True)

    def _write_theme(self, name: str) -> None:
        assert self.remember_theme is not None
        problem = self.remember_theme(name)
        if problem:
            self.call_from_thread(self.notify, f"The theme is not remembered: {problem}", severity="warning")

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

    def action_quit_here(self) -> None:
        self.run_screen.action_quit_dashboard()

    def action_stop(self) -> None:
        """Ctrl-C stops this process's run (and the dashboard stays to show how it ended);
        with nothing running here it leaves, and an attached run goes on."""
        if self.run_screen.running_here:
            self.run_screen.action_stop()
        else:
            self.exit()

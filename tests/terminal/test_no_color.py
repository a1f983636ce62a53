"""With NO_COLOR the dashboard still says how a run stands: the status badge is drawn as the
terminal will show it (Textual's own colour filter applied) and must read, not be grey on grey."""

from __future__ import annotations

import pytest
from rich.color import Color, ColorSystem
from textual.app import App, ComposeResult

from tui.state import DashboardState
from tui.widgets.status import StatusLine

STATUSES = ["starting", "running", "awaiting approval", "paused", "re-planning", "ok", "failed", "cancelled"]


class _StatusOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


def _luminance(color: Color | None, fallback: float) -> float:
    if color is None or color.triplet is None:
        return fallback
    red, green, blue = color.triplet
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


@pytest.mark.parametrize("colours", ["NO_COLOR", "colour"])
async def test_the_status_badge_reads_in_every_state(colours: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if colours == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    app = _StatusOnly()
    async with app.run_test(size=(120, 3)) as pilot:
        assert app.no_color is (colours == "NO_COLOR")
        line = app.query_one(StatusLine)
        for status in STATUSES:
            state = DashboardState(session_id="20261125-160744-9f61")  # a session's, not the bare dashboard's
            state.status = status
            line.show(state)
            await pilot.pause()
            segments = list(line.render_line(0))
            for shown in app._filters:  # what reaches the terminal
                segments = shown.apply(segments, app.screen.styles.background)
            badge = next(s for s in segments if s.text.strip())
            assert badge.text.strip() == status  # the word itself, not a colour alone
            style = badge.style
            assert style is not None
            fore, back = _luminance(style.color, 1.0), _luminance(style.bgcolor, 0.0)
            assert abs(fore - back) > 0.4, f"{status!r} drawn as {style}"


async def test_on_16_colours_warnings_are_yellow_errors_red_and_a_plan_is_neither(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The default theme's orange accent comes out as the terminal's red on 16 colours: the plan
    dialog looked like an error, the footer's keys were red on grey."""
    from textual.widgets._footer import FooterKey

    from tui.app import GoalbotApp
    from tui.screens.consent import ConsentScreen
    from tui.screens.plan_review import PlanReviewScreen

    monkeypatch.delenv("COLORTERM")
    monkeypatch.setenv("TERM", "xterm")
    names = {1: "red", 2: "green", 3: "yellow"}

    def shown(colour: object) -> str:
        """The colour's name among the terminal's 16, as the terminal is told to draw it."""
        ansi = getattr(colour, "ansi")
        number = ansi if ansi is not None else getattr(colour, "rich_color").downgrade(ColorSystem.STANDARD).number
        return names.get(number % 8, "other")

    def frame(app: GoalbotApp, selector: str) -> str:
        return shown(app.screen.query_one(selector).styles.border_top[1])

    app = GoalbotApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await app.push_screen(PlanReviewScreen(["Open the settings"]))
        await pilot.pause()
        assert frame(app, "#review-dialog") not in ("red", "yellow")
        key = app.screen.query(FooterKey).first()
        assert shown(key.styles.color) != "red"
        app.pop_screen()
        await app.push_screen(ConsentScreen.confirm("Stop it and quit?"))
        await pilot.pause()
        assert frame(app, "#consent-dialog") == "yellow"
        app.pop_screen()
        await app.push_screen(ConsentScreen("GO / NOT GO?\nPay 10 000 won", risky=True))
        await pilot.pause()
        assert frame(app, "#consent-dialog") == "red"

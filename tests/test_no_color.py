"""With NO_COLOR the dashboard still says how a run stands: the status badge is drawn as the
terminal will show it (Textual's own colour filter applied) and must read, not be grey on grey."""

from __future__ import annotations

import pytest
from rich.color import Color
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
            state = DashboardState()
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

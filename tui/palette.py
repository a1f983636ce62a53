"""How each phase of a session is coloured, the one map the status line and the sessions table share.
The word is always the status; the colour only repeats it."""

from __future__ import annotations

from typing import NamedTuple

from goalbot.payloads import Phase


class PhaseColours(NamedTuple):
    # Exact colours for the badge, dark text on light: ANSI names are drawn in the terminal theme's
    # shades (white on green came out grey on green), and 16-colour terminals take the nearest.
    badge: str
    # The 16 ANSI colours for a word in a table, drawn in the terminal's own shades.
    text: str


_RUNNING = PhaseColours("bold #000000 on #5fd7ff", "cyan")
_WAITING = PhaseColours("bold #000000 on #ff87ff", "")
_UNKNOWN = PhaseColours(_RUNNING.badge, "")

PHASE_COLOURS: dict[Phase, PhaseColours] = {
    Phase.STARTING: _RUNNING,
    Phase.RUNNING: _RUNNING,
    Phase.REPLANNING: _RUNNING,
    Phase.AWAITING_APPROVAL: _WAITING,
    Phase.PAUSED: _WAITING,
    Phase.OK: PhaseColours("bold #000000 on #5fd75f", "green"),
    Phase.FAILED: PhaseColours("bold #ffffff on #d70000", "bold red"),
    Phase.CANCELLED: PhaseColours("bold #000000 on #ffd700", "yellow"),
    Phase.INTERRUPTED: PhaseColours("bold #000000 on #5fd7ff", "yellow"),
}
NO_COLOR_BADGE = "bold reverse"  # NO_COLOR turns a badge to grey on grey: reversed text reads anywhere


def colours_of(status: str) -> PhaseColours:
    """The colours of a phase, or of a word an older store wrote that is none of them."""
    try:
        return PHASE_COLOURS[Phase(status)]
    except ValueError:
        return _UNKNOWN

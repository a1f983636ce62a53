"""The theme for terminals of 16 colours.

Textual's default theme draws warnings and its accent (dialog frames, the footer's keys) in an
orange that a 16-colour terminal shows as its nearest colour, red: a plan to approve looked like an
error and the keys were red on grey. This is the same theme with colours whose nearest of the 16
say what they mean: warnings yellow, errors red, the accent magenta.
"""

from __future__ import annotations

from dataclasses import replace

from textual.theme import BUILTIN_THEMES

SIXTEEN_COLOURS = replace(BUILTIN_THEMES["textual-dark"], name="goalbot-16", warning="#ffd75f", accent="#ff87ff")

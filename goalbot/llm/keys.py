"""Key names as models write them ("ctrl c", "Ctrl+Shift+T", "return") in Playwright's spelling."""

from __future__ import annotations

import re

ALIASES = {
    "ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta",
    "super": "Meta", "win": "Meta", "windows": "Meta", "alt": "Alt", "option": "Alt",
    "shift": "Shift", "enter": "Enter", "return": "Enter", "esc": "Escape", "escape": "Escape",
    "tab": "Tab", "backspace": "Backspace", "delete": "Delete", "del": "Delete", "space": "Space",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "pageup": "PageUp", "pagedown": "PageDown", "page_up": "PageUp",
    "page_down": "PageDown", "home": "Home", "end": "End", "insert": "Insert",
}


def key_name(word: str) -> str:
    lowered = word.strip().lower()
    if lowered in ALIASES:
        return ALIASES[lowered]
    if re.fullmatch(r"f([1-9]|1[0-2])", lowered):
        return lowered.upper()
    return lowered if len(lowered) == 1 else word.strip()


def key_names(combo: str | list[str]) -> list[str]:
    """`"ctrl c"`, `"ctrl+c"` or `["ctrl", "c"]` into `["Control", "c"]`."""
    words = combo if isinstance(combo, list) else re.split(r"[\s+]+", combo.strip())
    return [key_name(w) for w in words if str(w).strip()]

"""Typing characters the keyboard has no key for (Korean, emoji, accented letters) on X.

Each character gets a spare keycode of its own, mapped before its key goes down and kept mapped
afterwards. An application that reads its keys late therefore never finds a keycode meaning
another character by then: xdotool remaps one spare keycode per character as it types, and a
loaded Tk application turned "김치찌개" into "찌찌찌개"."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

_LOCK = threading.Lock()


class TypingFailed(Exception):
    """The display would not take the keys; the message says why."""

_KEPT: dict[str, OrderedDict[str, int]] = {}  # per display: character → its keycode, oldest first


def keysym_of(char: str) -> int:
    code = ord(char)
    return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 | code


def type_text(display: Any, text: str, pause_s: float = 0.01) -> None:
    """Types `text` through XTEST on `display` (python-xlib's, the one PyAutoGUI opened); blocks,
    so run it in a thread."""
    from Xlib import X
    from Xlib.error import XError
    from Xlib.ext import xtest

    try:
        with _LOCK:
            keys = _keys_for(display, text)
        for char in text:
            xtest.fake_input(display, X.KeyPress, keys[char])
            xtest.fake_input(display, X.KeyRelease, keys[char])
            display.sync()
            time.sleep(pause_s)
    except (XError, OSError) as exc:
        raise TypingFailed(str(exc)) from exc


def _keys_for(display: Any, text: str) -> dict[str, int]:
    """A keycode for each character of `text`, mapping spare ones (and, when there are too few,
    the ones used longest ago) to the characters that have none yet."""
    kept = _KEPT.setdefault(display.get_display_name(), OrderedDict())
    first = display.display.info.min_keycode
    mapping = display.get_keyboard_mapping(first, display.display.info.max_keycode - first + 1)
    spare = [first + n for n, syms in enumerate(mapping) if not any(syms) and first + n not in kept.values()]
    wanted = list(dict.fromkeys(text))
    if len(set(wanted) - set(kept)) > len(spare) + len(kept):
        raise TypingFailed(f"{len(set(wanted))} different characters at once; this display has room for "
                         f"{len(spare) + len(kept)}")
    for char in wanted:
        if char in kept:
            kept.move_to_end(char)
            continue
        if spare:
            code = spare.pop(0)
        else:  # reuse the key of the character typed longest ago and not needed now
            old = next(c for c in kept if c not in wanted)
            code = kept.pop(old)
        display.change_keyboard_mapping(code, [(keysym_of(char),) * 2])
        kept[char] = code
    display.sync()
    return {char: kept[char] for char in wanted}

"""The desktop operator: the whole screen, seen with mss and driven with PyAutoGUI.

Vision only: there are no elements, so the model points with coordinates on the screenshot.
Every action compares the screen before and after, and says "nothing changed" when nothing did.
PyAutoGUI's fail-safe stays on: throwing the mouse into a screen corner stops the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path
from typing import Any, Awaitable, Callable

from goalbot import actions as A
from goalbot.actions import Action, ActionResult, Outcome, SavedFile
from goalbot.operators.base import (
    SECRET_WORDS, ActionFailed, Landing, Located, Observation, OperatorError, ReadBack, Shown, Text,
)
from goalbot.operators.json_places import Fetched
from goalbot.operators import desktop_unicode as unicode_keys
from goalbot.operators.desktop_read import crop_around, read_words
from goalbot.operators.desktop_screen import (
    NO_DISPLAY, Screen, allow_unauthenticated_x, check_display, fingerprint, jpeg, with_grid,
)

SETTLE_S = 0.3  # how long an application gets to redraw before the screen is compared
_KEYS = {"Control": "ctrl", "Meta": "winleft", "Alt": "alt", "Shift": "shift", "Enter": "enter",
         "Escape": "esc", "ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right",
         "PageUp": "pageup", "PageDown": "pagedown", "Backspace": "backspace", "Delete": "delete",
         "Space": "space", "Tab": "tab", "Home": "home", "End": "end", "Insert": "insert"}
_QUIET = (A.Hover, A.Wait)  # actions after which an unchanged screen is no failure
_NOTE = ("This is the whole screen, seen only as the screenshot: there are no element indices. "
         "Point with x, y on the screenshot.")


def _key(name: str) -> str:
    return _KEYS.get(name, name.lower())


class DesktopOperator:
    name = "desktop"
    holds_writes = False

    def __init__(self, monitor: int = 1, grid: bool = False) -> None:
        self.monitor_number = monitor
        self.grid = grid
        self._screen: Screen | None = None
        self._gui: Any = None
        self._last_point: tuple[int, int] | None = None  # where the last click landed: the field typed into
        self._field_cache: tuple[tuple[int, int] | None, str] = (None, "")

    async def start(self, url: str | None) -> None:
        check_display()
        self._screen = await asyncio.to_thread(Screen, self.monitor_number)
        allow_unauthenticated_x()
        try:
            # python-xlib prints a warning about the empty Xauthority to stdout, where answers go.
            with contextlib.redirect_stdout(io.StringIO()):
                import pyautogui
        except Exception as exc:  # Xlib refuses the display, or it went away
            raise OperatorError(f"{NO_DISPLAY} ({type(exc).__name__}: {exc})") from exc
        pyautogui.FAILSAFE = True
        pyautogui.PAUSE = 0.05
        self._gui = pyautogui

    async def kept_trace(self, failed: bool) -> bytes | None:
        return None  # Playwright traces a browser; the desktop's evidence is its screenshots

    async def late_downloads(self) -> list[SavedFile]:
        return []  # a desktop app saves its files itself

    async def secret_typed_next(self) -> None:
        return None  # nothing recorded to mark

    async def close(self) -> None:
        if self._screen is not None:
            self._screen.close()
        self._screen = None

    @property
    def screen(self) -> Screen:
        if self._screen is None:
            raise OperatorError("the desktop operator was not started")
        return self._screen

    async def observe(self, screenshot: bool = True) -> Observation:
        image = await asyncio.to_thread(self.screen.grab)
        scale = self.screen.scale(image)
        m = self.screen.monitor
        shown = with_grid(image) if self.grid else image
        return Observation(
            url=f"screen:{m.number}", title=f"Monitor {m.number}, {m.width}×{m.height} at ({m.left}, {m.top})",
            viewport_width=m.width, viewport_height=m.height, device_pixel_ratio=scale,
            offset_x=m.left, offset_y=m.top, items=[Text(text=_NOTE)],
            screenshot=await asyncio.to_thread(jpeg, shown) if screenshot else None,
        )

    async def picture(self) -> bytes | None:
        try:
            image = await asyncio.to_thread(self.screen.grab)
        except OperatorError:
            return None
        return await asyncio.to_thread(jpeg, with_grid(image) if self.grid else image)

    async def signature(self) -> str:
        return fingerprint(await asyncio.to_thread(self.screen.grab), coarse=True)

    async def _look(self) -> str:
        return fingerprint(await asyncio.to_thread(self.screen.grab))

    async def is_secret_field(self, index: int | None) -> bool:
        """Whether the words by the field last clicked say password (or PIN, 비밀번호…)."""
        return bool(SECRET_WORDS.search(await self._field_words()))

    async def landing(self, action: Action) -> Landing:
        """The words under the pointer where the button goes down and up; for keys and typing,
        the words by the field last clicked."""
        ends: list[tuple[float | None, float | None]] = []
        if A.presses_pointer(action):
            ends.append((getattr(action, "x", None), getattr(action, "y", None)))
        if isinstance(action, A.Drag):
            ends.append((action.to_x, action.to_y))
        points = [(x, y) for x, y in ends if x is not None and y is not None]
        if points:
            image = await asyncio.to_thread(self.screen.grab)
            # A button's label sits around the point: a generous button's width each way.
            words = [await read_words(crop_around(image, self.screen.monitor, x, y, 130, 130, 24)) for x, y in points]
            return Landing(words=" | ".join(w for w in words if w))
        if isinstance(action, A.Type) or A.submits(action):
            return Landing(words=await self._field_words())
        return Landing()

    async def evidence(self, index: int) -> dict[str, str]:
        return {}

    async def find(self, selector: str) -> int | None:
        return None

    def expect_to_find(self, selectors: list[str]) -> None:
        pass  # a screen has no selectors

    async def absent(self, selector: str) -> bool:
        return False  # a screen has no selectors

    async def gone(self, index: int) -> bool:
        return False

    # The screen's words are all the desktop can read: no structure to find places in.
    async def read_text(self, scope: int | None) -> str:
        return ""

    async def places_of(self, data: Any, scope: int | None) -> Located | None:
        return None

    async def read_places(self, place: dict[str, Any]) -> ReadBack:
        return ReadBack(misses=["the desktop keeps no places to read again"])

    async def shown(self, noun: str, fields: list[str], scope: int | None) -> Shown:
        return Shown()

    async def shown_pdf(self) -> Path | None:
        return None

    async def fetched(self) -> list[Fetched]:
        return []

    async def pictures_text(self, scope: int | None) -> str:
        return ""

    async def items(self, each: str, nth: int) -> list[int]:
        return []

    def hold_writes(self) -> None:
        raise NotImplementedError("the desktop cannot hold back what an application sends")

    async def release_held(self) -> str:
        return "nothing is held on the desktop"

    async def drop_held(self) -> None:
        return None

    async def _field_words(self) -> str:
        """The words by the field last clicked: a label is usually to its left or on it."""
        if self._last_point is None:
            return ""
        if self._field_cache[0] != self._last_point:
            image = await asyncio.to_thread(self.screen.grab)
            x, y = self._last_point
            words = await read_words(crop_around(image, self.screen.monitor, x, y, 320, 60, 22))
            self._field_cache = (self._last_point, words)
        return self._field_cache[1]

    async def execute(self, action: Action) -> ActionResult:
        handler: Callable[[Any], Awaitable[str]] | None = getattr(self, f"_do_{action.name}", None)
        if handler is None:
            return ActionResult(outcome=Outcome.UNSUPPORTED,
                                message=f"the desktop cannot {action.name}; it clicks, types, scrolls and presses keys")
        before = await self._look()
        try:
            message = await handler(action)
        except ActionFailed as exc:
            return ActionResult(outcome=exc.outcome, message=str(exc))
        except self._gui.FailSafeException as exc:
            raise OperatorError("PyAutoGUI's fail-safe: the mouse went to a corner of the screen; stopped") from exc
        await asyncio.sleep(SETTLE_S)
        if not isinstance(action, _QUIET) and await self._look() == before:
            return ActionResult(outcome=Outcome.NO_EFFECT, message=f"{message}; nothing changed on the screen")
        return ActionResult(outcome=Outcome.OK, message=message)

    async def _run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        # PyAutoGUI blocks: in a thread, the event loop (and the stop key) stays responsive.
        await asyncio.to_thread(function, *args, **kwargs)

    @staticmethod
    def _point(action: Any) -> tuple[int, int]:
        if action.x is None or action.y is None:
            raise ActionFailed(Outcome.TARGET_NOT_FOUND,
                               "the desktop has no element indices: give x and y on the screenshot")
        return round(action.x), round(action.y)

    async def _do_click(self, action: A.Click) -> str:
        x, y = self._point(action)
        self._last_point = (x, y)
        await self._run(self._gui.click, x, y)
        return f"clicked at ({x}, {y})"

    async def _do_double_click(self, action: A.DoubleClick) -> str:
        x, y = self._point(action)
        self._last_point = (x, y)
        await self._run(self._gui.doubleClick, x, y)
        return f"double-clicked at ({x}, {y})"

    async def _do_right_click(self, action: A.RightClick) -> str:
        x, y = self._point(action)
        await self._run(self._gui.rightClick, x, y)
        return f"right-clicked at ({x}, {y})"

    async def _do_hover(self, action: A.Hover) -> str:
        x, y = self._point(action)
        await self._run(self._gui.moveTo, x, y)
        return f"moved the mouse to ({x}, {y})"

    async def _do_drag(self, action: A.Drag) -> str:
        if None in (action.x, action.y, action.to_x, action.to_y):
            raise ActionFailed(Outcome.TARGET_NOT_FOUND, "the desktop drags from x, y to to_x, to_y")
        start, end = (round(action.x), round(action.y)), (round(action.to_x), round(action.to_y))  # type: ignore[arg-type]
        await self._run(self._gui.moveTo, *start)
        await self._run(self._gui.dragTo, *end, duration=0.4, button="left")
        return f"dragged from {start} to {end}"

    async def _do_scroll(self, action: A.Scroll) -> str:
        if action.x is not None and action.y is not None:
            await self._run(self._gui.moveTo, round(action.x), round(action.y))
        clicks = max(1, (action.amount or 500) // 100)
        direction = action.direction.value
        if direction in ("up", "down"):
            await self._run(self._gui.scroll, clicks if direction == "up" else -clicks)
        else:
            await self._run(self._gui.hscroll, clicks if direction == "right" else -clicks)
        return f"scrolled {direction} {clicks} notches"

    async def _do_type(self, action: A.Type) -> str:
        if action.index is not None:
            raise ActionFailed(Outcome.TARGET_NOT_FOUND,
                               "the desktop has no element indices: click the field first, then type")
        if action.text.isascii():
            await self._run(self._gui.write, action.text, interval=0.01)
        else:
            await self._type_unicode(action.text)
        if action.submit:
            await self._run(self._gui.press, "enter")
        return f"typed {len(action.text)} characters" + (" and pressed Enter" if action.submit else "")

    async def _type_unicode(self, text: str) -> None:
        # PyAutoGUI only knows the keys on the keyboard: the others get spare keys of their own.
        try:
            await asyncio.to_thread(unicode_keys.type_text, self._gui.platformModule._display, text)
        except unicode_keys.TypingFailed as exc:
            raise ActionFailed(Outcome.UNSUPPORTED, f"could not type it: {exc}") from exc

    async def _do_key(self, action: A.Key) -> str:
        await self._run(self._gui.press, _key(action.key))
        return f"pressed {action.key}"

    async def _do_hotkey(self, action: A.Hotkey) -> str:
        await self._run(self._gui.hotkey, *[_key(k) for k in action.keys])
        return f"pressed {'+'.join(action.keys)}"

    async def _do_wait(self, action: A.Wait) -> str:
        if action.text:
            raise ActionFailed(Outcome.UNSUPPORTED, "the desktop cannot read text; wait without `text`")
        await asyncio.sleep(action.patience)
        return f"waited {action.patience:g}s"

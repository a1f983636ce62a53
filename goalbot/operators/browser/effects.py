"""Did an action do anything, and what does a Playwright failure mean for the model."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from goalbot.actions import ActionResult, Outcome
from goalbot.operators.browser import checks as js
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser.scripts import evaluate
from goalbot.operators.browser.watch import BrowserWatcher

EFFECT_PATIENCE_S = 1.2
# A signature costs a few milliseconds: looking often finds a quick effect soon after it happens.
EFFECT_POLL_S = 0.03


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class EffectProbe:
    """Fingerprints the page before an action and waits for the fingerprint to change."""

    def __init__(
        self, page: Callable[[], Page], watcher: BrowserWatcher,
        settle: Callable[[Page, bool], Awaitable[object]],
    ) -> None:
        self._page = page
        self._watcher = watcher
        self._settle = settle

    async def signature(self, settled: object = None) -> tuple[object, ...]:
        """`settled`: the main frame's change count, when a call just now answered it."""
        page = self._page()
        changes: list[object] = []
        for frame in page.frames:
            if settled is not None and frame is page.main_frame:
                changes.append(settled)
                continue
            try:
                changes.append(await evaluate(frame, js.CHANGES_JS))
            except PlaywrightError:
                changes.append(None)  # navigating right now: that is a change too
        return (self._watcher.happenings, page.url, len(page.context.pages), tuple(changes))

    async def changed_since(self, before: tuple[object, ...], picture: bytes | None = None,
                            pressed: bool = False) -> bool:
        """Wait a moment for the action's effect: DOM, navigation, dialog, tab, or pixels.
        `pressed`: the top frame's count in `before` gives way to its count as the pointer's
        button went down, when the page saw it go down."""
        deadline = time.monotonic() + EFFECT_PATIENCE_S
        # Most handlers run inside the action itself: the page settles and is compared at once
        # (one call answers both), then polled.
        if pressed:
            settled, before = await self._settled_since_down(before)
        else:
            settled = await self._settle(self._page(), False)
        if await self.signature(settled) != before:
            return True
        while time.monotonic() < deadline:
            await asyncio.sleep(EFFECT_POLL_S)
            if await self.signature() != before:
                await self._settle(self._page(), False)
                return True
        if picture is not None:
            return await self._page().screenshot(type="png") != picture
        return False

    async def _settled_since_down(self, before: tuple[object, ...]) -> tuple[object, tuple[object, ...]]:
        """The settled top frame's count, and `before` with the top frame counted from the moment
        the button went down, when that document saw it go down (a click that navigated: the new
        one did not, and `before` stays)."""
        answer = await self._settle(self._page(), True)
        if not isinstance(answer, list):
            return answer, before
        changes, down = answer
        counts = before[3]
        if isinstance(down, int) and down >= 0 and isinstance(counts, tuple) and counts:
            before = (*before[:3], (down, *counts[1:]))
        return changes, before

    async def answered(self, before: tuple[object, ...]) -> bool:
        """Waits for the page's answer to the input just given: the timers it set itself right
        after (a debounce) have fired and its requests are back, within the effect patience; then
        its drawing settles. The first change is not enough: a counter updated at once would pass
        for suggestions still to come. True when the page changed since `before`."""
        page = self._page()
        owed: list[tuple[Frame, list[int]]] = []
        for frame in page.frames:
            with contextlib.suppress(PlaywrightError):  # a frame navigating away owes nothing here
                owed.append((frame, await frame.evaluate(js.OWED_JS, EFFECT_PATIENCE_S * 1000)))
        deadline = time.monotonic() + EFFECT_PATIENCE_S
        while time.monotonic() < deadline and await self._owes(owed):
            await asyncio.sleep(EFFECT_POLL_S)
        return await self.signature(await self._settle(page, False)) != before

    @staticmethod
    async def _owes(owed: list[tuple[Frame, list[int]]]) -> bool:
        for frame, ids in owed:
            try:
                if await frame.evaluate(js.OWES_JS, ids):
                    return True
            except PlaywrightError:
                continue  # gone or navigating: it owes this input nothing more
        return False

    async def with_effect(
        self, act: Callable[[], Awaitable[None]], what: str, by_pixels: bool = False,
        pressed_from: int | None = None,
    ) -> str:
        """`act`, which must change the page. `pressed_from`: `act` presses the pointer on the top
        frame, whose change count this was just now (no call is made for it)."""
        picture = await self._page().screenshot(type="png") if by_pixels else None
        before = await self.signature(pressed_from)
        await act()
        if not await self.changed_since(before, picture, pressed=pressed_from is not None):
            raise ActionFailed(
                Outcome.NO_EFFECT,
                f"{what}, but nothing changed on the page (no DOM change, navigation, dialog, new tab"
                f"{' or pixel' if by_pixels else ''}); it may not respond to that, or need something else first",
            )
        return what


def classify(exc: PlaywrightError) -> ActionResult:
    text = first_line(exc)
    lowered = str(exc).lower()  # Playwright's call log below the first line says why
    if "target closed" in lowered or "crash" in lowered or "disconnected" in lowered \
            or "browser has been closed" in lowered:
        return ActionResult(outcome=Outcome.BROWSER_GONE, message=f"the browser is gone: {text}")
    if "not attached" in lowered or "detached" in lowered or "context was destroyed" in lowered:
        return ActionResult(
            outcome=Outcome.STALE_INDEX,
            message="that element left the page since the observation; observe again",
        )
    if "intercepts pointer events" in lowered or "not visible" in lowered \
            or "not enabled" in lowered or "not stable" in lowered:
        return ActionResult(outcome=Outcome.NOT_ACTIONABLE, message=text)
    if isinstance(exc, PlaywrightTimeout):
        return ActionResult(outcome=Outcome.TIMEOUT, message=f"timed out: {text}")
    return ActionResult(outcome=Outcome.NOT_ACTIONABLE, message=text)

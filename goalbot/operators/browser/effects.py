"""Did an action do anything, and what does a Playwright failure mean for the model."""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from goalbot.actions import ActionResult, Outcome
from goalbot.operators.browser import checks as js
from goalbot.operators.base import ActionFailed
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
        settle: Callable[[Page], Awaitable[None]],
    ) -> None:
        self._page = page
        self._watcher = watcher
        self._settle = settle

    async def _promised(self, within_ms: float) -> bool:
        for frame in self._page().frames:
            try:
                if await frame.evaluate(js.PROMISED_JS, within_ms):
                    return True
            except PlaywrightError:
                return True  # navigating right now: more is coming
        return False

    async def signature(self) -> tuple[object, ...]:
        page = self._page()
        changes: list[object] = []
        for frame in page.frames:
            try:
                changes.append(await frame.evaluate(js.CHANGES_JS))
            except PlaywrightError:
                changes.append(None)  # navigating right now: that is a change too
        return (self._watcher.happenings, page.url, len(page.context.pages), tuple(changes))

    async def changed_since(self, before: tuple[object, ...], picture: bytes | None = None,
                            while_promised: bool = False) -> bool:
        """Wait a moment for the action's effect: DOM, navigation, dialog, tab, or pixels. With
        `while_promised`, only while the page has work of its own pending (a short timer, a
        frame, a request): a page with nothing pending changes no more without new input."""
        deadline = time.monotonic() + EFFECT_PATIENCE_S
        while True:  # most handlers run inside the action itself: look at once, then poll
            if await self.signature() != before:
                await self._settle(self._page())
                return True
            left_ms = (deadline - time.monotonic()) * 1000
            if left_ms <= 0 or (while_promised and not await self._promised(left_ms)):
                break
            await asyncio.sleep(EFFECT_POLL_S)
        if picture is not None:
            return await self._page().screenshot(type="png") != picture
        return False

    async def with_effect(
        self, act: Callable[[], Awaitable[None]], what: str, by_pixels: bool = False,
    ) -> str:
        picture = await self._page().screenshot(type="png") if by_pixels else None
        before = await self.signature()
        await act()
        if not await self.changed_since(before, picture):
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

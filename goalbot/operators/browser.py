"""The browser operator: a real Chromium driven through Playwright's async API."""

from __future__ import annotations

import asyncio
from importlib.resources import files
from typing import Any

from playwright.async_api import Browser, BrowserContext, ElementHandle, Page, Playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from goalbot import actions as A
from goalbot.actions import Action, ActionResult, Outcome
from goalbot.operators.base import Observation, OperatorError
from goalbot.operators.browser_locate import LAUNCH_ARGS, BrowserNotFound, find_browser

OBSERVE_JS = files("goalbot.operators").joinpath("observe.js").read_text(encoding="utf-8")
FIND_JS = "i => (window.__goalbot && window.__goalbot.elements[i - 1]) || null"
ACTION_TIMEOUT_MS = 5_000
NAVIGATION_TIMEOUT_MS = 30_000
TEXT_BUDGET = 80


class _ActionFailed(Exception):
    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class BrowserOperator:
    name = "browser"

    def __init__(
        self,
        headless: bool = True,
        browser_path: str | None = None,
        viewport: tuple[int, int] = (1280, 800),
    ) -> None:
        self.headless = headless
        self.browser_path = browser_path
        self.viewport = viewport
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._element_count = 0

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, url: str | None) -> None:
        try:
            choice = find_browser(self.browser_path)
        except BrowserNotFound as exc:
            raise OperatorError(f"{exc}; pass an existing --browser-path") from exc
        self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(
                headless=self.headless, executable_path=choice.path, args=LAUNCH_ARGS
            )
        except PlaywrightError as exc:
            await self.close()
            raise OperatorError(
                f"could not start {choice.describe()}: {_first_line(exc)}. Install Chromium "
                "(apt-get install chromium, or playwright install chromium) or pass --browser-path."
            ) from exc
        width, height = self.viewport
        self._context = await self._browser.new_context(viewport={"width": width, "height": height})
        self._context.on("page", self._adopt_page)
        self._page = await self._context.new_page()
        if url:
            result = await self.execute(A.Navigate(url=url))
            if not result.ok:
                raise OperatorError(result.message)

    async def close(self) -> None:
        for closer in (self._browser, self._playwright):
            if closer is None:
                continue
            try:
                await (closer.close() if closer is self._browser else closer.stop())  # type: ignore[union-attr]
            except Exception:  # closing a browser that already died must not mask the real error
                pass
        self._browser = self._playwright = self._context = self._page = None

    def _adopt_page(self, page: Page) -> None:
        # A link that opens a new tab makes that tab the current page, as it would for a person.
        self._page = page

    @property
    def page(self) -> Page:
        if self._page is None or self._page.is_closed():
            raise OperatorError("the browser is gone (its page was closed)")
        if self._browser is not None and not self._browser.is_connected():
            raise OperatorError("the browser is gone (the Chromium process ended)")
        return self._page

    # -- observation -----------------------------------------------------------------------

    async def observe(self, screenshot: bool = True) -> Observation:
        page = self.page
        try:
            await self._settle(page)
            raw: dict[str, Any] = await page.evaluate(OBSERVE_JS, TEXT_BUDGET)
            tabs = [await p.title() or p.url for p in page.context.pages]
            shot = await page.screenshot(type="jpeg", quality=70) if screenshot else None
            title = await page.title()
        except PlaywrightError as exc:
            raise OperatorError(f"the browser stopped answering: {_first_line(exc)}") from exc
        self._element_count = sum(1 for item in raw["items"] if item["kind"] == "element")
        current = page.context.pages.index(page) + 1 if page in page.context.pages else 1
        return Observation(
            url=page.url, title=title, tabs=tabs, current_tab=current, screenshot=shot, **raw
        )

    async def _settle(self, page: Page) -> None:
        try:
            await page.wait_for_load_state("load", timeout=NAVIGATION_TIMEOUT_MS)
        except PlaywrightTimeout:
            pass  # a page that never finishes loading can still be observed

    # -- actions ---------------------------------------------------------------------------

    async def execute(self, action: Action) -> ActionResult:
        handler = getattr(self, f"_do_{action.name}", None)
        if handler is None:
            return ActionResult(
                outcome=Outcome.UNSUPPORTED,
                message=f"the browser cannot run {action.name}",
            )
        try:
            self.page  # a dead browser is the answer, whatever the action
            message = await handler(action)
        except _ActionFailed as exc:
            return ActionResult(outcome=exc.outcome, message=str(exc))
        except OperatorError as exc:
            return ActionResult(outcome=Outcome.BROWSER_GONE, message=str(exc))
        except PlaywrightTimeout as exc:
            return ActionResult(outcome=Outcome.TIMEOUT, message=f"timed out: {_first_line(exc)}")
        except PlaywrightError as exc:
            return self._classify(exc)
        return ActionResult(outcome=Outcome.OK, message=message)

    def _classify(self, exc: PlaywrightError) -> ActionResult:
        text = _first_line(exc)
        lowered = text.lower()
        if "closed" in lowered or "crash" in lowered or "disconnected" in lowered:
            return ActionResult(outcome=Outcome.BROWSER_GONE, message=f"the browser is gone: {text}")
        if "not attached" in lowered or "detached" in lowered:
            return ActionResult(
                outcome=Outcome.STALE_INDEX,
                message="that element left the page since the observation; observe again",
            )
        return ActionResult(outcome=Outcome.NOT_ACTIONABLE, message=text)

    async def _element(self, index: int) -> ElementHandle:
        if not 1 <= index <= self._element_count:
            span = f"[1]–[{self._element_count}]" if self._element_count else "no elements"
            raise _ActionFailed(
                Outcome.TARGET_NOT_FOUND,
                f"there is no element [{index}]; the latest observation has {span}",
            )
        handle = (await self.page.evaluate_handle(FIND_JS, index)).as_element()
        if handle is None or not await handle.evaluate("e => e.isConnected"):
            raise _ActionFailed(
                Outcome.STALE_INDEX,
                f"element [{index}] is gone: the page changed since the observation",
            )
        return handle

    async def _point_or_element(self, action: A._Targeted) -> tuple[ElementHandle | None, str]:
        if action.index is not None:
            return await self._element(action.index), f"[{action.index}]"
        return None, f"({action.x:.0f}, {action.y:.0f})"

    async def _after_input(self) -> None:
        # A click may start a navigation a moment later; give it the chance, then let it load.
        await asyncio.sleep(0.15)
        await self._settle(self.page)

    async def _press(self, action: A._Targeted, verb: str, button: str = "left", count: int = 1) -> str:
        element, where = await self._point_or_element(action)
        if element is not None:
            await element.click(button=button, click_count=count, timeout=ACTION_TIMEOUT_MS)  # type: ignore[arg-type]
        else:
            await self.page.mouse.click(action.x, action.y, button=button, click_count=count)  # type: ignore[arg-type]
        await self._after_input()
        return f"{verb} {where}"

    async def _do_click(self, action: A.Click) -> str:
        return await self._press(action, "clicked")

    async def _do_double_click(self, action: A.DoubleClick) -> str:
        return await self._press(action, "double-clicked", count=2)

    async def _do_right_click(self, action: A.RightClick) -> str:
        return await self._press(action, "right-clicked", button="right")

    async def _do_hover(self, action: A.Hover) -> str:
        element, where = await self._point_or_element(action)
        if element is not None:
            await element.hover(timeout=ACTION_TIMEOUT_MS)
        else:
            await self.page.mouse.move(action.x, action.y)  # type: ignore[arg-type]
        return f"hovering over {where}"

    async def _centre(self, index: int) -> tuple[float, float]:
        element = await self._element(index)
        await element.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        box = await element.bounding_box()
        if box is None:
            raise _ActionFailed(Outcome.NOT_ACTIONABLE, f"element [{index}] is not visible")
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    async def _do_drag(self, action: A.Drag) -> str:
        if action.index is not None and action.to_index is not None:
            start, end = await self._centre(action.index), await self._centre(action.to_index)
        else:
            start, end = (action.x, action.y), (action.to_x, action.to_y)  # type: ignore[assignment]
        mouse = self.page.mouse
        await mouse.move(*start)
        await mouse.down()
        await mouse.move(*end, steps=12)
        await mouse.up()
        return f"dragged from {start} to {end}"

    async def _do_type(self, action: A.Type) -> str:
        if action.index is None:
            if action.clear:
                await self.page.keyboard.press("ControlOrMeta+a")
            await self.page.keyboard.type(action.text)
            where = "the focused element"
        else:
            element = await self._element(action.index)
            if action.clear:
                await element.fill(action.text, timeout=ACTION_TIMEOUT_MS)
            else:
                await element.press_sequentially(action.text, timeout=ACTION_TIMEOUT_MS)
            await self._check_value(element, action)
            where = f"[{action.index}]"
        if action.submit:
            await self.page.keyboard.press("Enter")
            await self._after_input()
        return f"typed {len(action.text)} characters into {where}" + (" and pressed Enter" if action.submit else "")

    async def _check_value(self, element: ElementHandle, action: A.Type) -> None:
        value = await element.evaluate(
            "e => ('value' in e && typeof e.value === 'string') ? e.value : e.innerText"
        )
        if action.text not in (value or ""):
            raise _ActionFailed(
                Outcome.NO_EFFECT,
                f"typed into [{action.index}] but the field does not hold the text "
                "(it may reject input or reformat it)",
            )

    async def _do_select_option(self, action: A.SelectOption) -> str:
        element = await self._element(action.index)
        tag = await element.evaluate("e => e.tagName")
        if tag != "SELECT":
            raise _ActionFailed(
                Outcome.NOT_ACTIONABLE,
                f"element [{action.index}] is not a select; click it and pick the option instead",
            )
        match = await element.evaluate(
            """(e, o) => {
                const hit = Array.from(e.options).find(x => x.text.trim() === o || x.value === o);
                return hit ? hit.value : null;
            }""",
            action.option,
        )
        if match is None:
            raise _ActionFailed(
                Outcome.TARGET_NOT_FOUND, f"[{action.index}] has no option {action.option!r}"
            )
        chosen = await element.select_option(value=match, timeout=ACTION_TIMEOUT_MS)
        if match not in chosen:
            raise _ActionFailed(Outcome.NO_EFFECT, f"[{action.index}] did not take {action.option!r}")
        await self._after_input()
        return f"selected {action.option!r} in [{action.index}]"

    async def _do_scroll(self, action: A.Scroll) -> str:
        amount = action.amount or int(self.viewport[1] * 0.8)
        dx, dy = {
            A.Direction.UP: (0, -amount),
            A.Direction.DOWN: (0, amount),
            A.Direction.LEFT: (-amount, 0),
            A.Direction.RIGHT: (amount, 0),
        }[action.direction]
        script = """([el, dx, dy]) => {
            const t = el || document.scrollingElement || document.documentElement;
            const before = [t.scrollLeft, t.scrollTop];
            t.scrollBy(dx, dy);
            return before[0] !== t.scrollLeft || before[1] !== t.scrollTop;
        }"""
        target = await self._element(action.index) if action.index is not None else None
        moved = await self.page.evaluate(script, [target, dx, dy])
        if not moved:
            raise _ActionFailed(
                Outcome.NO_EFFECT, f"cannot scroll {action.direction.value}: already at the edge"
            )
        return f"scrolled {action.direction.value} by {amount}px"

    async def _do_key(self, action: A.Key) -> str:
        await self.page.keyboard.press(action.key)
        await self._after_input()
        return f"pressed {action.key}"

    async def _do_hotkey(self, action: A.Hotkey) -> str:
        combo = "+".join(action.keys)
        await self.page.keyboard.press(combo)
        await self._after_input()
        return f"pressed {combo}"

    async def _do_navigate(self, action: A.Navigate) -> str:
        try:
            response = await self.page.goto(
                action.url, wait_until="load", timeout=NAVIGATION_TIMEOUT_MS
            )
        except PlaywrightError as exc:
            raise _ActionFailed(
                Outcome.NAVIGATION_FAILED, f"could not open {action.url}: {_first_line(exc)}"
            ) from exc
        if response is not None and response.status >= 400:
            raise _ActionFailed(
                Outcome.NAVIGATION_FAILED, f"{action.url} answered HTTP {response.status}"
            )
        return f"opened {self.page.url}"

    async def _do_go_back(self, action: A.GoBack) -> str:
        if await self.page.go_back(timeout=NAVIGATION_TIMEOUT_MS) is None:
            raise _ActionFailed(Outcome.NO_EFFECT, "there is no previous page in this tab")
        return f"went back to {self.page.url}"

    async def _do_switch_tab(self, action: A.SwitchTab) -> str:
        pages = self.page.context.pages
        if not 1 <= action.tab <= len(pages):
            raise _ActionFailed(
                Outcome.TARGET_NOT_FOUND, f"there is no tab {action.tab}; {len(pages)} are open"
            )
        self._page = pages[action.tab - 1]
        await self._page.bring_to_front()
        return f"switched to tab {action.tab}"

    async def _do_wait(self, action: A.Wait) -> str:
        await asyncio.sleep(action.seconds)
        return f"waited {action.seconds:g}s"

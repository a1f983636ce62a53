"""Keeps the browser's top-level pages on allowed addresses, however a navigation starts.

A link, a script, a form, a redirect or a new tab: every document request of a tab's top frame,
each hop of a redirect included, is paused in Chromium itself (the DevTools `Fetch` domain, one
session per tab) and goes on only when the address is allowed. Playwright's own routing sees the
first request of a new tab, before that tab's session exists, and holds it until the session is
ready. After every action, a tab that ended up anywhere else all the same (an address no network
request shows, such as a local file) is taken back. Frames inside an allowed page are left alone.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from playwright.async_api import BrowserContext, CDPSession, Page, Request, Route
from playwright.async_api import Error as PlaywrightError

_DOCUMENTS = {"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]}


class DomainGuard:
    def __init__(self, allows: Callable[[str], bool]) -> None:
        self.allows = allows
        self._blocked: list[str] = []
        self._watching: dict[Page, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def attach(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)
        context.on("page", self._ensure)

    def _ensure(self, page: Page) -> asyncio.Task[None]:
        if page not in self._watching:
            self._watching[page] = asyncio.ensure_future(self._watch(page))
        return self._watching[page]

    async def watch(self, page: Page) -> None:
        """Returns once every document request of `page`'s top frame passes through the check."""
        await self._ensure(page)

    async def _watch(self, page: Page) -> None:
        try:
            session = await page.context.new_cdp_session(page)
            tree = await session.send("Page.getFrameTree")
            top = tree["frameTree"]["frame"]["id"]
            session.on("Fetch.requestPaused", lambda event: self._spawn(self._paused(session, top, event)))
            await session.send("Fetch.enable", _DOCUMENTS)
        except PlaywrightError:
            pass  # the tab closed before it could be watched: nothing left to guard

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _paused(self, session: CDPSession, top: str, event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        try:
            if event.get("frameId") == top and not self.allows(url):
                self._blocked.append(url)
                await session.send("Fetch.failRequest", {"requestId": event["requestId"],
                                                         "errorReason": "BlockedByClient"})
            else:
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
        except PlaywrightError:
            pass  # the tab closed while the request waited

    async def _route(self, route: Route, request: Request) -> None:
        try:
            if request.is_navigation_request() and request.frame.parent_frame is None:
                if not self.allows(request.url):
                    self._blocked.append(request.url)
                    await route.abort("blockedbyclient")
                    return
                await self._ensure(request.frame.page)  # a new tab: its redirects are watched too
            await route.continue_()
        except PlaywrightError:
            pass  # the page closed while the request waited: nothing left to guard

    async def stopped(self, page: Page) -> list[str]:
        """Addresses stopped since the last call. Chromium shows an error page where a navigation
        was stopped: the tab goes back to where the agent was. A tab on an address that is not
        allowed (one no request shows) is taken back, or closed when a page opened it."""
        blocked, self._blocked = self._blocked, []
        if blocked:  # Chromium commits its error page a moment after the request was stopped
            try:
                await page.wait_for_url(lambda url: url.startswith("chrome-error:"), timeout=2_000)
            except PlaywrightError:
                pass
        # Only tabs goalbot opened or saw open: a browser reached over CDP keeps the person's own.
        for tab in [tab for tab in self._watching if not tab.is_closed()]:
            if tab.url.startswith("chrome-error:") or not self.allows(tab.url):
                if not tab.url.startswith("chrome-error:"):
                    blocked.append(tab.url)
                await _leave(tab, closing=tab is not page)
        return blocked


async def _leave(tab: Page, closing: bool) -> None:
    try:
        if closing:
            await tab.close()
        elif await tab.go_back(timeout=30_000) is None or not tab.url.startswith(("http:", "https:")):
            await tab.goto("about:blank")
    except PlaywrightError:
        pass

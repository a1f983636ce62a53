"""Keeps the browser's top-level pages on allowed addresses, however a navigation starts.

A link, a script, a form, a redirect or a new tab: every document request of a tab's top frame,
each hop of a redirect included, is paused in Chromium itself (the DevTools `Fetch` domain, one
session per tab) and goes on only when the address is allowed. Playwright's own routing sees the
first request of a new tab before that tab (or its session) exists: it is stopped, and the tab is
sent to that address again once it shows and is watched. After every action, a tab that ended up anywhere else all the same (an address no network
request shows, such as a local file) is taken back. Frames inside an allowed page are left alone.

An action can end while a navigation it started is still on its way: a form post the server answers
late, with a redirect elsewhere. Each tab's top-frame navigation let through is therefore followed
to its answer (paused again when its response comes) and the check at an action's end waits for it,
so the action that sent it is the one reported stopped and no look sees the error page first.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Callable

from playwright.async_api import BrowserContext, CDPSession, Frame, Page, Request, Route
from playwright.async_api import Error as PlaywrightError

_DOCUMENTS = {"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": stage}
                            for stage in ("Request", "Response")]}
# How long an action's end waits for a navigation let through to be answered: one slower than this
# (or cancelled, which is never answered) is decided by the next action's end, as before.
ANSWER_WITHIN_S = 5.0
# How long a new tab, watched, is given to reach its first address again.
REOPEN_WITHIN_S = 10.0
# How long a tab taken back from a stopped navigation is asked to go back while it cannot answer.
LEAVE_WITHIN_S = 2.0


class DomainGuard:
    def __init__(self, allows: Callable[[str], bool]) -> None:
        self.allows = allows
        self._blocked: list[str] = []
        self._watching: dict[Page, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        # Per tab, its top frame's navigation let through and not yet answered: (network id, since).
        self._in_flight: dict[Page, tuple[str, float]] = {}
        self._answered = asyncio.Event()
        self._to_reopen: list[str] = []  # new tabs' first addresses, in the order they were asked
        self._reopening: set[asyncio.Task[None]] = set()

    async def attach(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)
        context.on("page", self._ensure)

    def _ensure(self, page: Page) -> asyncio.Task[None]:
        if page not in self._watching:
            self._watching[page] = asyncio.ensure_future(self._watch(page))
            if self._to_reopen:  # the tab whose first request was stopped until it is watched
                reopening = asyncio.ensure_future(self._reopen(page, self._to_reopen.pop(0)))
                self._reopening.add(reopening)
                reopening.add_done_callback(self._reopening.discard)
        return self._watching[page]

    async def _reopen(self, page: Page, url: str) -> None:
        await self._watching[page]
        with contextlib.suppress(PlaywrightError):
            await page.goto(url, wait_until="commit", timeout=REOPEN_WITHIN_S * 1000)

    async def watch(self, page: Page) -> None:
        """Returns once every document request of `page`'s top frame passes through the check."""
        await self._ensure(page)

    async def _watch(self, page: Page) -> None:
        try:
            session = await page.context.new_cdp_session(page)
            tree = await session.send("Page.getFrameTree")
            top = tree["frameTree"]["frame"]["id"]
            session.on("Fetch.requestPaused", lambda event: self._spawn(self._paused(page, session, top, event)))
            await session.send("Fetch.enable", _DOCUMENTS)
        except PlaywrightError:
            pass  # the tab closed before it could be watched: nothing left to guard

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _paused(self, page: Page, session: CDPSession, top: str, event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        navigation = event.get("networkId") or event["requestId"]  # the same for each hop of a redirect
        answered = "responseStatusCode" in event or "responseErrorReason" in event
        try:
            if event.get("frameId") != top:
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            elif answered:
                if not _redirects(event):  # a redirect's next hop is paused and decided as a request
                    self._settle(page, navigation)
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            elif not self.allows(url):
                self._blocked.append(url)
                self._settle(page, navigation)
                await session.send("Fetch.failRequest", {"requestId": event["requestId"],
                                                         "errorReason": "BlockedByClient"})
            else:  # a new navigation of the top frame replaces any it had on its way
                self._in_flight[page] = (navigation, time.monotonic())
                await session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
        except PlaywrightError:
            self._settle(page, navigation)  # the tab closed while the request waited

    def _settle(self, page: Page, navigation: str) -> None:
        if self._in_flight.get(page, ("", 0.0))[0] == navigation:
            del self._in_flight[page]
            self._answered.set()

    async def _navigations_answered(self) -> None:
        """Returns once every open tab's navigation let through is answered, or has waited
        ANSWER_WITHIN_S since it was sent."""
        while True:
            now = time.monotonic()
            waiting = [since for tab, (_, since) in self._in_flight.items()
                       if not tab.is_closed() and now - since < ANSWER_WITHIN_S]
            if not waiting:
                return
            self._answered.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._answered.wait(), ANSWER_WITHIN_S - (now - min(waiting)))

    async def _route(self, route: Route, request: Request) -> None:
        try:
            frame: Frame | None = request.frame
        except PlaywrightError:
            # A new tab's first request comes before its frame exists (Playwright will not name
            # it): it is a top frame's all the same, and the tab is watched once it opens.
            frame = None
        try:
            if request.is_navigation_request() and (frame is None or frame.parent_frame is None):
                if not self.allows(request.url):
                    self._blocked.append(request.url)
                    await route.abort("blockedbyclient")
                    return
                if frame is None:
                    # A new tab's first request, which comes before Playwright shows the tab: were it
                    # let through, its redirect hops would go unwatched. It is stopped, and sent
                    # again once the tab shows and is watched.
                    self._to_reopen.append(request.url)
                    await route.abort("blockedbyclient")
                    return
                await self._ensure(frame.page)  # a tab not yet watched: its redirects are watched too
            await route.continue_()
        except PlaywrightError:
            pass  # the page closed while the request waited: nothing left to guard

    async def stopped(self, page: Page) -> list[str]:
        """Addresses stopped since the last call. Chromium shows an error page where a navigation
        was stopped: the tab goes back to where the agent was. A tab on an address that is not
        allowed (one no request shows) is taken back, or closed when a page opened it."""
        if self._reopening:  # a new tab sent on to its first address: decided once it got there
            await asyncio.wait(list(self._reopening), timeout=REOPEN_WITHIN_S)
        await self._navigations_answered()
        blocked, self._blocked = self._blocked, []
        if blocked and not page.url.startswith("chrome-error:"):
            # Chromium commits its error page a moment after the request was stopped. An event, not
            # wait_for_url: that one fails at once on the very navigation that was stopped.
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_event("framenavigated", lambda frame: frame is page.main_frame
                                          and frame.url.startswith("chrome-error:"), timeout=2_000)
        # Only tabs goalbot opened or saw open: a browser reached over CDP keeps the person's own.
        for tab in [tab for tab in self._watching if not tab.is_closed()]:
            if tab.url.startswith("chrome-error:") or not self.allows(tab.url):
                if not tab.url.startswith("chrome-error:"):
                    blocked.append(tab.url)
                await _leave(tab, closing=tab is not page)
        return blocked


async def _leave(tab: Page, closing: bool) -> None:
    if closing:
        with contextlib.suppress(PlaywrightError):
            await tab.close()
        return
    # Chromium puts its error page in a process of its own: for a moment after it shows, the tab
    # answers no history call ("Not attached to an active page"). It is asked again, not left on
    # the error page.
    deadline = time.monotonic() + LEAVE_WITHIN_S
    while True:
        try:
            back = await tab.go_back(timeout=30_000)
            break
        except PlaywrightError:
            if tab.is_closed() or time.monotonic() > deadline:
                return
            await asyncio.sleep(0.05)
    if back is None or not tab.url.startswith(("http:", "https:")):
        with contextlib.suppress(PlaywrightError):
            await tab.goto("about:blank")


def _redirects(event: dict[str, Any]) -> bool:
    """A response that sends its navigation on to another address (Chromium follows it)."""
    status = int(event.get("responseStatusCode") or 0)
    return 300 <= status < 400 and any(header["name"].lower() == "location"
                                       for header in event.get("responseHeaders") or [])

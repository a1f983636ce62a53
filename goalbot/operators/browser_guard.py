"""Keeps the browser's top-level pages on the allowed domains, however a navigation starts.

A link, a script, a redirect or a new tab: each asks here before it loads, and is stopped in
the browser itself when the address is not allowed. Frames inside an allowed page are left alone.
"""

from __future__ import annotations

from typing import Callable

from playwright.async_api import BrowserContext, Page, Request, Route
from playwright.async_api import Error as PlaywrightError


class DomainGuard:
    def __init__(self, allows: Callable[[str], bool]) -> None:
        self.allows = allows
        self._blocked: list[str] = []

    async def attach(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)

    async def _route(self, route: Route, request: Request) -> None:
        try:
            if request.is_navigation_request() and request.frame.parent_frame is None \
                    and not self.allows(request.url):
                self._blocked.append(request.url)
                await route.abort("blockedbyclient")
                return
            await route.continue_()
        except PlaywrightError:
            pass  # the page closed while the request waited: nothing left to guard

    async def stopped(self, page: Page) -> list[str]:
        """Addresses stopped since the last call. Chromium shows an error page where a navigation
        was stopped: the tab goes back to where the agent was."""
        blocked, self._blocked = self._blocked, []
        if blocked and page.url.startswith("chrome-error:"):
            try:
                await page.go_back(timeout=30_000)
            except PlaywrightError:
                pass
        return blocked

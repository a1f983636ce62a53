"""The darkmode flow written by hand in Playwright: five actions, no checks. Run as a script, it is
one job of a hand-made batch (bench/batch.py); bench/rerun.py times it in process.

    python bench/batch_by_hand.py URL             one job: its own process and browser
    python bench/batch_by_hand.py URL --kept N    N jobs one after another in one kept browser,
                                                  each in a fresh context (what a worker is)
    … --kept N --safety                           the same, each job inside goalbot's page-side
                                                  safety (bench/batch_safety.py)

With --safety, goalbot's own modules put around each job what goalbot puts around every page: the
domain guard (every document request of a tab's top frame paused and checked, redirects included),
the write hold's route for sockets and its script, goalbot's page scripts (the watch, the look),
and a settled look at the page before each action and at the end, as a rerun's runner takes.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import Browser, BrowserContext, Page, async_playwright  # noqa: E402

from goalbot.operators.browser.locate import LAUNCH_ARGS, find_browser  # noqa: E402


class Safety:
    """goalbot's page-side mechanisms for one context, set up and used as its operator does."""

    def __init__(self, url: str) -> None:
        # Imported here: a bare worker loads Playwright alone, as a hand-written one would.
        from goalbot.operators.browser.guard import DomainGuard
        from goalbot.operators.browser.observe import PageObserver
        from goalbot.operators.browser.operator import IDLE_MS, QUIET_MS, SETTLE_MOST_MS, TEXT_BUDGET
        from goalbot.operators.browser.pages import NAVIGATION_TIMEOUT_MS
        from goalbot.operators.browser.writes import WriteHold

        origin = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/"
        self.guard = DomainGuard(lambda address: address.startswith(origin))
        self.hold = WriteHold(secrets.token_hex(16))
        self.observer = PageObserver(TEXT_BUDGET)
        self.settle = [QUIET_MS, IDLE_MS, SETTLE_MOST_MS, NAVIGATION_TIMEOUT_MS]

    async def around(self, context: BrowserContext) -> None:
        from goalbot.operators.browser.scripts import PAGE_SCRIPTS_JS

        await context.add_init_script(PAGE_SCRIPTS_JS)
        await asyncio.gather(self.hold.attach(context), self.hold.route_sockets(context), self.guard.attach(context))

    async def look(self, page: Page) -> None:
        await self.guard.stopped(page)
        await self.observer.observe(page, self.settle)


async def darkmode_in(browser: Browser, url: str, safe: bool = False) -> None:
    safety = Safety(url) if safe else None
    context = await browser.new_context()
    if safety:
        await safety.around(context)
    page = await context.new_page()
    if safety:
        await safety.guard.watch(page)

    async def look() -> None:
        if safety:
            await safety.look(page)

    await page.goto(url)
    await look()
    await page.fill("#user", "alice")
    await look()
    await page.fill("#pw", "hunter2")
    await look()
    await page.click("#signin")
    await look()
    await page.click("#dark")
    await look()
    await page.click("#save")
    await look()
    await page.get_by_text("Saved").wait_for()
    await context.close()


async def darkmode_by_hand(url: str, jobs: int = 1, safe: bool = False) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(headless=True, executable_path=find_browser().path, args=LAUNCH_ARGS)
        for _ in range(jobs):
            await darkmode_in(browser, url, safe)
        await browser.close()


if __name__ == "__main__":
    kept = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--kept" else 1
    asyncio.run(darkmode_by_hand(sys.argv[1], kept, safe="--safety" in sys.argv[4:]))

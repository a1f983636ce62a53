"""The darkmode flow written by hand in Playwright: five actions, no checks. Run as a script, it is
one job of a hand-made batch (bench/batch.py); bench/rerun.py times it in process.

    python bench/batch_by_hand.py URL             one job: its own process and browser
    python bench/batch_by_hand.py URL --kept N    N jobs one after another in one kept browser,
                                                  each in a fresh context (what a worker is)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import Browser, async_playwright  # noqa: E402

from goalbot.operators.browser.locate import LAUNCH_ARGS, find_browser  # noqa: E402


async def darkmode_in(browser: Browser, url: str) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(url)
    await page.fill("#user", "alice")
    await page.fill("#pw", "hunter2")
    await page.click("#signin")
    await page.click("#dark")
    await page.click("#save")
    await page.get_by_text("Saved").wait_for()
    await context.close()


async def darkmode_by_hand(url: str, jobs: int = 1) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(headless=True, executable_path=find_browser().path, args=LAUNCH_ARGS)
        for _ in range(jobs):
            await darkmode_in(browser, url)
        await browser.close()


if __name__ == "__main__":
    kept = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--kept" else 1
    asyncio.run(darkmode_by_hand(sys.argv[1], kept))

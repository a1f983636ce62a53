"""The darkmode flow written by hand in Playwright: its own browser, five actions, no checks. Run
as a script, it is one job of a hand-made batch (bench/batch.py); bench/rerun.py times it in process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import async_playwright  # noqa: E402

from goalbot.operators.browser.locate import LAUNCH_ARGS, find_browser  # noqa: E402


async def darkmode_by_hand(url: str) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(headless=True, executable_path=find_browser().path, args=LAUNCH_ARGS)
        page = await browser.new_page()
        await page.goto(url)
        await page.fill("#user", "alice")
        await page.fill("#pw", "hunter2")
        await page.click("#signin")
        await page.click("#dark")
        await page.click("#save")
        await page.get_by_text("Saved").wait_for()
        await browser.close()


if __name__ == "__main__":
    asyncio.run(darkmode_by_hand(sys.argv[1]))

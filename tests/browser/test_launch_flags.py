"""The flags goalbot starts Chromium with. Chromium keeps only the last --disable-features it is
given: ours must keep every feature Playwright disables as well as its own, and a context must not
start the address bar's suggestion page (a renderer per context, for a list nobody sees)."""

from __future__ import annotations

from playwright.async_api import async_playwright

from goalbot.operators.browser.launch import launch_browser
from goalbot.operators.browser.options import BrowserOptions


async def test_every_feature_playwright_disables_stays_disabled_beside_ours(chromium: None) -> None:
    async with async_playwright() as playwright:
        browser = await launch_browser(playwright, BrowserOptions(headless=True))
        try:
            page = await (await browser.new_context()).new_page()
            await page.goto("chrome://version")
            command_line = (await page.inner_text("#command_line")).split()
        finally:
            await browser.close()
    given = [flag.split("=", 1)[1].split(",") for flag in command_line if flag.startswith("--disable-features=")]
    assert len(given) >= 2, command_line  # Playwright's, then ours
    in_effect = set(given[-1])
    for earlier in given[:-1]:
        assert set(earlier) <= in_effect, f"Playwright disables {set(earlier) - in_effect} too: add them to locate.py"
    assert "WebUIOmniboxPopup" in in_effect


async def test_a_context_opens_no_page_of_the_browsers_own_ui(chromium: None) -> None:
    async with async_playwright() as playwright:
        browser = await launch_browser(playwright, BrowserOptions(headless=True))
        try:
            page = await (await browser.new_context()).new_page()
            await page.goto("data:text/html,<button>hi</button>")
            await page.click("button")
            session = await browser.new_browser_cdp_session()
            targets = (await session.send("Target.getTargets"))["targetInfos"]
        finally:
            await browser.close()
    # Without the flags, the address bar's suggestion pages are open by the time the page is.
    assert [t["url"] for t in targets if t["type"] == "browser_ui"] == []

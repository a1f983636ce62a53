"""Actions on pages and tabs rather than on elements: open, go back, switch, close, wait."""

from __future__ import annotations

import asyncio
import time

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.browser import checks as js
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser.effects import first_line

NAVIGATION_TIMEOUT_MS = 30_000
ACTION_TIMEOUT_MS = 5_000  # how long an element may take to become usable


async def navigate(page: Page, action: A.Navigate) -> str:
    try:
        response = await page.goto(action.url, wait_until="load", timeout=NAVIGATION_TIMEOUT_MS)
    except PlaywrightError as exc:
        if "download is starting" in str(exc).lower():
            return f"{action.url} is a file: it is being downloaded"
        raise ActionFailed(Outcome.NAVIGATION_FAILED, f"could not open {action.url}: {first_line(exc)}") from exc
    if response is not None and response.status >= 400:
        raise ActionFailed(Outcome.NAVIGATION_FAILED, f"{action.url} answered HTTP {response.status}")
    return f"opened {page.url}"


async def go_back(page: Page) -> str:
    if await page.go_back(timeout=NAVIGATION_TIMEOUT_MS) is None:
        raise ActionFailed(Outcome.NO_EFFECT, "there is no previous page in this tab")
    return f"went back to {page.url}"


def tab(current: Page, number: int) -> Page:
    pages = current.context.pages
    if not 1 <= number <= len(pages):
        raise ActionFailed(Outcome.TARGET_NOT_FOUND, f"there is no tab {number}; {len(pages)} are open")
    return pages[number - 1]


async def switch_tab(current: Page, action: A.SwitchTab) -> tuple[str, Page]:
    page = tab(current, action.tab)
    await page.bring_to_front()
    return f"switched to tab {action.tab}: {page.url}", page


async def close_tab(current: Page, action: A.CloseTab) -> tuple[str, Page]:
    """Closes the tab; returns what happened and the page that is current afterwards."""
    pages = current.context.pages
    page = tab(current, action.tab) if action.tab is not None else current
    if len(pages) == 1:
        raise ActionFailed(Outcome.NOT_ACTIONABLE, "this is the only tab; navigate instead of closing it")
    number = pages.index(page) + 1
    await page.close()
    remaining = current.context.pages
    now = current if current is not page and current in remaining else remaining[-1]
    await now.bring_to_front()
    return f"closed tab {number}; the current tab is now {now.url}", now


async def wait(page: Page, action: A.Wait) -> str:
    if not action.text:
        await asyncio.sleep(action.patience)
        return f"waited {action.patience:g}s"
    deadline = time.monotonic() + action.patience
    while True:
        if await _text_shows(page, action.text):
            return f"the text {action.text!r} is on the page"
        if time.monotonic() >= deadline:
            raise ActionFailed(
                Outcome.TIMEOUT, f"the text {action.text!r} did not appear within {action.patience:g}s"
            )
        await asyncio.sleep(0.2)


async def _text_shows(page: Page, text: str) -> bool:
    for frame in page.frames:
        try:
            if await frame.evaluate(js.HAS_TEXT_JS, text):
                return True
        except PlaywrightError:
            continue
    return False

"""Typing into a field, and checking that the field holds what was typed."""

from __future__ import annotations

from playwright.async_api import ElementHandle, Page

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators import browser_checks as js
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser_pages import ACTION_TIMEOUT_MS


async def into_focus(page: Page, action: A.Type) -> str:
    """Types where the keyboard focus is; refuses when that is no field (keys would press it)."""
    where = (await page.evaluate(js.FOCUSED_JS))["where"]
    if where == "none":
        raise ActionFailed(Outcome.NOT_ACTIONABLE, "no field has focus; give the `index` to type into")
    if where == "control":  # keys on a button press it: that is `click` or `key`, not typing
        raise ActionFailed(Outcome.NOT_ACTIONABLE, "the focused element is not a field; give "
                           "the `index` of the field to type into")
    if action.clear:
        await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.type(action.text)
    focus = await page.evaluate(js.FOCUSED_JS)
    if focus["where"] == "field" and action.text not in (focus["value"] or ""):
        raise ActionFailed(Outcome.NO_EFFECT, "typed, but the focused element does not hold the text")
    return "the focused element"


async def into_element(element: ElementHandle, action: A.Type) -> str:
    problem = await element.evaluate(js.PROBLEM_JS, js.CAPTCHA_SELECTOR)
    if problem == "it is disabled":
        raise ActionFailed(Outcome.NOT_ACTIONABLE, f"cannot type into [{action.index}]: {problem}")
    if action.clear:
        await element.fill(action.text, timeout=ACTION_TIMEOUT_MS)
    else:
        await element.press_sequentially(action.text, timeout=ACTION_TIMEOUT_MS)
    value = await element.evaluate(js.VALUE_JS)
    if action.text not in (value or ""):
        raise ActionFailed(
            Outcome.NO_EFFECT,
            f"typed into [{action.index}] but the field does not hold the text (it may reject input or reformat it)",
        )
    return f"[{action.index}]"

"""The keyboard: typing into a field (checking that the field holds what was typed, and waiting
for the suggestions a field offers when it says it has them), and pressing keys and chords."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import ElementHandle, Page

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.browser import checks as js
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser.pages import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands

# A field that offers suggestions of its own: a combobox, a list, a page's own autocomplete (pages
# that draw their own switch the browser's off), or one that says it controls a popup.
SUGGESTS_JS = """(e) => !!e && e.nodeType === 1 && (
  ["combobox", "searchbox"].includes(e.getAttribute("role")) || e.type === "search"
  || (e.getAttribute("aria-autocomplete") || "none") !== "none" || e.hasAttribute("list")
  || e.hasAttribute("aria-controls") || e.hasAttribute("aria-owns") || e.hasAttribute("aria-haspopup")
  || (e.getAttribute("autocomplete") || "").toLowerCase() === "off")"""
# What the field holds after typing, and whether it suggests, in one call.
TYPED_JS = f"e => [({js.VALUE_JS})(e), ({SUGGESTS_JS})(e)]"
# Focus with the caret after what the field holds: text typed without clearing is added at its end.
# setSelectionRange throws on fields with no caret (email, number): those keep where focus put it.
CARET_AT_END_JS = """e => {
  e.focus();
  if (typeof e.value === "string" && typeof e.setSelectionRange === "function") {
    try { e.setSelectionRange(e.value.length, e.value.length); } catch (_) {}
  } else if (e.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(e);
    range.collapse(false);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
}"""


async def type_text(op: BrowserHands, action: A.Type) -> str:
    if action.index is None:
        suggests = await op.page.evaluate(f"() => ({SUGGESTS_JS})(document.activeElement)")
        where = await into_focus(op.page, action)
    else:
        field = await op.elements.element(action.index, js.FIELD_JS, "type into")
        where, suggests = await into_element(field, action)
    # Each key is an input event, a change of its own: the page's answer is measured from here.
    before = await op.probe.signature() if suggests and not action.submit else None
    done = f"typed {len(action.text)} characters into {where}"
    if action.submit:
        await op.page.keyboard.press("Enter")
        await op.after_input()
        return done + " and pressed Enter"
    # Suggestions often come a moment later (a pause in typing, then a request): the next look
    # must see them, so the page's answer to the typing is waited for, within the effect patience:
    # the timers it set and the requests it sent, not just its first change.
    if before is not None and await op.probe.answered(before):
        done += "; the page changed after typing"
    return done


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


async def into_element(element: ElementHandle, action: A.Type) -> tuple[str, bool]:
    """Types into `element`; where, and whether the field offers suggestions (read after typing:
    a combobox may say so only once it has text)."""
    if action.clear:
        await element.fill(action.text, timeout=ACTION_TIMEOUT_MS)
    else:
        await element.evaluate(CARET_AT_END_JS)
        await element.type(action.text, timeout=ACTION_TIMEOUT_MS)
    value, suggests = await element.evaluate(TYPED_JS)
    if action.text not in (value or ""):
        raise ActionFailed(
            Outcome.NO_EFFECT,
            f"typed into [{action.index}] but the field does not hold the text (it may reject input or reformat it)",
        )
    return f"[{action.index}]", bool(suggests)


async def press_keys(op: BrowserHands, combo: str) -> str:
    before = await op.probe.signature()
    await op.page.keyboard.press(combo)
    changed = await op.probe.changed_since(before)
    return f"pressed {combo}" + ("" if changed else "; no change seen on the page")

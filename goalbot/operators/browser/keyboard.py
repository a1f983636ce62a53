"""The keyboard: typing into a field (checking that the field holds what was typed, and waiting
for the suggestions a field offers when it says it has them), and pressing keys and chords."""

from __future__ import annotations

import asyncio
from itertools import groupby
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from playwright.async_api import CDPSession, ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

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
# Readies a field for keys in one call, and says how it takes text: "fill" for one with no caret
# for keys (a date, a colour, a range: the browser's own picker) and for what is no field itself
# (Playwright finds a label's control, or says why not: keys would go wherever the focus was);
# else focused, with what it holds selected to be typed over (`clear`) or the caret after it —
# but where the caret already is in a field that has the keys (a toolbar's bold button leaves it
# between its marks): "multiline" where Enter makes a new line, "line" where it sends the form.
READY_JS = """(e, clear) => {
  const keyed = e.tagName === "INPUT" ? !/^(date|time|datetime-local|month|week|color|range)$/.test(e.type)
    : e.tagName === "TEXTAREA" || e.isContentEditable;
  if (!keyed) return "fill";
  const multiline = e.tagName === "INPUT" ? "line" : "multiline";
  const doc = e.ownerDocument;
  if (!clear && doc.hasFocus() && e.getRootNode().activeElement === e) return multiline;
  e.focus();
  if (typeof e.value === "string" && typeof e.select === "function") {
    if (clear) e.select();
    else try { e.setSelectionRange(e.value.length, e.value.length); } catch (_) {}  // email, number: no caret
  } else {
    const range = doc.createRange();
    range.selectNodeContents(e);
    if (!clear) range.collapse(false);
    const selection = doc.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  return multiline;
}"""
LONG_TEXT = 100  # characters: longer text is inserted at once but for its last KEYED_TAIL
KEYED_TAIL = 20
MAX_FRAME_DEPTH = 6  # a frame inside a frame inside a frame is as deep as pages go


async def type_text(op: BrowserHands, action: A.Type) -> str:
    if action.index is None:
        suggests = await op.page.evaluate(f"() => ({SUGGESTS_JS})(document.activeElement)")
        where = await into_focus(op.page, action)
    else:
        field = await op.elements.element(action.index, js.FIELD_JS, "type into")
        where, suggests = await into_element(op.page, field, action)
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
    _, focus = await focused(page)
    if focus["where"] == "none":
        raise ActionFailed(Outcome.NOT_ACTIONABLE, "no field has focus; give the `index` to type into")
    if focus["where"] == "control":  # keys on a button press it: that is `click` or `key`, not typing
        raise ActionFailed(Outcome.NOT_ACTIONABLE, "the focused element is not a field; give "
                           "the `index` of the field to type into")
    if action.clear:
        await page.keyboard.press("ControlOrMeta+a")
        if not action.text:
            await page.keyboard.press("Delete")
    await type_keys(page, action.text, bool(focus.get("multiline")))
    _, focus = await focused(page)
    if focus["where"] == "field" and action.text not in (focus["value"] or ""):
        raise ActionFailed(Outcome.NO_EFFECT, "typed, but the focused element does not hold the text")
    return "the focused element"


async def focused(page: Page) -> tuple[Frame, dict[str, Any]]:
    """The frame that holds the keyboard focus, and FOCUSED_JS's answer there: focus in a frame is
    followed into it (cross-origin too), so what is typed into is the element focused inside."""
    frame = page.main_frame
    answer: dict[str, Any] = await frame.evaluate(js.FOCUSED_JS)
    for _ in range(MAX_FRAME_DEPTH):
        if answer["where"] != "frame":
            break
        active = (await frame.evaluate_handle(js.DEEP_FOCUS_JS)).as_element()
        inner = await active.content_frame() if active is not None else None
        if inner is None:
            break  # a frame going away: its answer stays "frame", which nobody may take for a field
        frame, answer = inner, await inner.evaluate(js.FOCUSED_JS)
    return frame, answer


async def into_element(page: Page, element: ElementHandle, action: A.Type) -> tuple[str, bool]:
    """Types into `element`; where, and whether the field offers suggestions (read after typing:
    a combobox may say so only once it has text)."""
    how = await element.evaluate(READY_JS, action.clear)
    if how == "fill":
        await element.fill(action.text, timeout=ACTION_TIMEOUT_MS)
    elif action.clear and not action.text:  # selected, and nothing to type over it: emptied
        await page.keyboard.press("Delete")
    else:
        await type_keys(page, action.text, how == "multiline")
    value, suggests = await element.evaluate(TYPED_JS)
    if action.text not in (value or ""):
        raise ActionFailed(
            Outcome.NO_EFFECT,
            f"typed into [{action.index}] but the field does not hold the text (it may reject input or reformat it)",
        )
    return f"[{action.index}]", bool(suggests)


async def type_keys(page: Page, text: str, multiline: bool) -> None:
    """Types `text` where the focus is, as a keyboard does: keydown, keypress, input and keyup for
    each character, so a page that listens to keys (a filter on keyup) answers as it would to a
    person. A character no US key makes (Korean, accents, emoji) is one key event carrying it, whole.
    Long text is put in at once but for its last characters, typed as keys: a page reads the
    field on its key events, and a thousand presses would take seconds."""
    if len(text) > LONG_TEXT:
        head, text = text[:-KEYED_TAIL], text[-KEYED_TAIL:]
        await page.keyboard.insert_text(head)
    for run in _runs(text):
        if run[0] in "\r\n" and multiline:
            for _ in range(run.count("\n") or run.count("\r")):
                await page.keyboard.press("Enter")
        elif run[0] in "\r\n\t":
            # Enter would send a one-line field's form, Tab would leave it: text is what was asked.
            await page.keyboard.insert_text(run)
        else:
            await _as_keys(page, run)


def _runs(text: str) -> list[str]:
    """`text` cut where the way it is typed changes: line ends, tabs, and characters typed as keys."""
    def kind(char: str) -> str:
        return "line" if char in "\r\n" else "tab" if char == "\t" else "keys"
    return ["".join(chars) for _, chars in groupby(text, key=kind)]


async def _as_keys(page: Page, text: str) -> None:
    # The browser is sent every event at once and takes them in order: waiting for each one's
    # answer, as Playwright's keyboard does, costs a round trip per event (seconds for a paragraph
    # on a loaded machine), and Playwright's keyboard only inserts what no US key makes.
    events = [event for char in text for event in _key_events(char)]
    session = _SESSIONS.get(page)
    if session is None:
        session = _SESSIONS[page] = await page.context.new_cdp_session(page)
    try:
        await asyncio.gather(*(session.send("Input.dispatchKeyEvent", event) for event in events))
    except PlaywrightError:
        _SESSIONS.pop(page, None)  # a session the page lost (it crashed, or was closed): not kept
        raise


# One session to the browser per page, kept while the page lives: opening one costs round trips.
_SESSIONS: WeakKeyDictionary[Page, CDPSession] = WeakKeyDictionary()


# The US keys that type a character with Shift held: the key pages read (its code and key code).
_SHIFTED = {**dict(zip(")!@#$%^&*(", "0123456789")), "_": "-", "+": "=", "{": "[", "}": "]", "|": "\\",
            ":": ";", '"': "'", "<": ",", ">": ".", "?": "/", "~": "`"}
_PUNCTUATION = {" ": ("Space", 32), "-": ("Minus", 189), "=": ("Equal", 187), "[": ("BracketLeft", 219),
                "]": ("BracketRight", 221), "\\": ("Backslash", 220), ";": ("Semicolon", 186), "'": ("Quote", 222),
                ",": ("Comma", 188), ".": ("Period", 190), "/": ("Slash", 191), "`": ("Backquote", 192)}


def _key_of(char: str) -> dict[str, Any]:
    """The key a US keyboard types `char` with, as a page reads it (e.key, e.code, e.keyCode); a
    character no key makes is a key event carrying just it."""
    base = _SHIFTED.get(char, char)
    if base.isascii() and base.isalpha():
        code, number = f"Key{base.upper()}", ord(base.upper())
    elif base.isascii() and base.isdigit():
        code, number = f"Digit{base}", ord(base)
    elif base in _PUNCTUATION:
        code, number = _PUNCTUATION[base]
    else:
        return {"key": char}
    return {"key": char, "code": code, "windowsVirtualKeyCode": number, "nativeVirtualKeyCode": number}


def _key_events(char: str) -> list[dict[str, Any]]:
    key = _key_of(char)
    return [{**key, "type": "keyDown", "text": char, "unmodifiedText": char}, {**key, "type": "keyUp"}]


async def press_keys(op: BrowserHands, combo: str) -> str:
    before = await op.probe.signature()
    await op.page.keyboard.press(combo)
    changed = await op.probe.changed_since(before)
    return f"pressed {combo}" + ("" if changed else "; no change seen on the page")

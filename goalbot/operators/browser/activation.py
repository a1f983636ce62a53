"""What an action would set off on the page, found the way the browser will really do it.

The GO / NOT GO gate judges this, never the tool's name: the element under the pointer at press
and at release, the focused element for keys (and the form Enter would submit), the address a
navigation loads and the links and forms on the page that aim at it. Behind it stands the page's
own gate (`gate.js`): a form whose words say it pays, deletes or sends is held back, however its
submission was triggered, until goalbot lets it through.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any, Awaitable, Callable

from playwright.async_api import Frame, Page
from playwright.async_api import Error as PlaywrightError

from goalbot import actions as A
from goalbot.actions import Action
from goalbot.operators.base import ActionFailed, Landing
from goalbot.operators.browser.checks import SIGNATURE_JS
from goalbot.operators.browser.evidence import GONE_JS
from goalbot.operators.browser.scripts import evaluate

_HELPERS = r"""
const FIELD = "textarea, select, [contenteditable=''], [contenteditable='true'], input:not([type=button])"
  + ":not([type=submit]):not([type=reset]):not([type=image]):not([type=checkbox]):not([type=radio])"
  + ":not([type=file]):not([type=range]):not([type=color])";
const ACTIVE = "a[href], area[href], button, input, summary, label, [role=button], [role=link], "
  + "[role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=tab], [role=option], "
  + "[role=checkbox], [role=radio], [role=switch], [onclick]";
const SUBMIT = "button:not([type]), button[type=submit], input[type=submit], input[type=image]";
const squash = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 200);
const said = (e) => {
  const img = e.querySelector && e.querySelector("img[alt]");
  const label = e.labels && e.labels.length ? e.labels[0].innerText : "";
  return squash(e.getAttribute("aria-label") || e.innerText || label || e.value || e.getAttribute("title")
    || e.getAttribute("alt") || (img ? img.alt : ""));
};
const up = (e) => e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
const clickable = (e) => e.matches(ACTIVE)
  || !!(window.__goalbotWatch && window.__goalbotWatch.clickables.has(e));
const address = (e) => {
  const href = e.getAttribute("href");
  try { return href ? new URL(href, location.href).href : ""; } catch { return ""; }
};
const formWords = (form) => [...form.querySelectorAll(SUBMIT)].map(said).filter(Boolean).join(" ");
// Pressing the mouse on `el`: the nearest thing that reacts to it, in the words on it.
const pressed = (el) => {
  for (let e = el; e && e.nodeType === 1; e = up(e)) {
    if (e.matches(FIELD)) return { words: "", url: "" };  // pressing into a field only focuses it
    if (e.tagName === "LABEL" && e.control && e.control.matches(FIELD)) return { words: "", url: "" };
    if (clickable(e)) {
      const form = e.matches(SUBMIT) ? e.form : null;
      return { words: said(e), url: form ? form.action : address(e) };
    }
  }
  const own = squash(el.innerText || el.getAttribute("aria-label") || "");
  return { words: own.length <= 80 ? own : "", url: "" };
};
"""

PRESSED_JS = f"(el) => {{ {_HELPERS} return pressed(el); }}"

# The element a click at (x, y) hits, inside open shadow roots too (an iframe stops the search).
HIT_JS = """([x, y]) => {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}"""

FRAME_ORIGIN_JS = "(e) => { const r = e.getBoundingClientRect(); return [r.left + e.clientLeft, r.top + e.clientTop]; }"

DEEP_FOCUS_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}"""

# Keys pressed on the focused element: null when focus is inside a frame (its document answers).
FOCUS_JS = f"""(enter) => {{ {_HELPERS}
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body || el === document.documentElement) return {{ words: "", url: "" }};
  if (el.tagName === "IFRAME" || el.tagName === "FRAME") return null;
  if (el.matches(FIELD)) {{
    const form = enter ? (el.form || el.closest("form")) : null;
    return form ? {{ words: formWords(form), url: form.action }} : {{ words: "", url: "" }};
  }}
  return pressed(el);
}}"""

# Enter in this field: the form it submits (a field outside a form sets off nothing but itself).
SUBMITTED_FROM_JS = f"""(el) => {{ {_HELPERS}
  const form = el.form || el.closest("form");
  return form ? {{ words: formWords(form), url: form.action }} : pressed(el);
}}"""

# The links and forms of this page that aim at `url`: what a person would have pressed to go there.
AIMED_AT_JS = f"""(url) => {{ {_HELPERS}
  const key = (u) => {{ try {{ const v = new URL(u, location.href); return v.origin + v.pathname; }} catch {{ return null; }} }};
  const want = key(url);
  if (!want) return "";
  const words = [];
  for (const a of document.querySelectorAll("a[href], area[href]"))
    if (key(a.getAttribute("href")) === want) words.push(said(a));
  for (const f of document.forms)
    if (f.getAttribute("action") && key(f.getAttribute("action")) === want) words.push(formWords(f));
  return squash(words.join(" "));
}}"""

HELD_JS = "() => window.__goalbotGate ? window.__goalbotGate.held() : []"
# The top frame's held forms with what an action's caller asks next: whether element [i] (frame-
# local; 0 for none) left the page, as GONE_JS says, and the page's signature. One call, not three.
HELD_AFTER_JS = f"([i]) => [({HELD_JS})(), i ? ({GONE_JS})(i) : null, ({SIGNATURE_JS})()]"
RELEASE_JS = "(token) => window.__goalbotGate ? window.__goalbotGate.release(token) : []"

_GATE_JS = files("goalbot.operators.browser").joinpath("gate.js").read_text(encoding="utf-8")

# Runs a script on element [index] of the latest look, in one call (`Elements.run`).
RunOn = Callable[[int, str], Awaitable[Any]]


def gate_script(patterns: list[tuple[str, str]], token: str) -> str:
    """The page's gate, holding forms whose words match one of `patterns` (source, JS flags);
    only a caller that knows `token` can let them through."""
    return _GATE_JS.replace("__PATTERNS__", json.dumps(patterns)).replace("__TOKEN__", json.dumps(token))


def _landing(found: object, url: str = "") -> Landing:
    if not isinstance(found, dict):
        return Landing(url=url)
    return Landing(words=str(found.get("words") or ""), url=str(found.get("url") or url))


def _merge(*landings: Landing) -> Landing:
    return Landing(words=" | ".join(dict.fromkeys(x.words for x in landings if x.words)),
                   url=" ".join(dict.fromkeys(x.url for x in landings if x.url)))


async def _at_point(frame: Frame, x: float, y: float, depth: int = 0) -> Landing:
    handle = (await frame.evaluate_handle(HIT_JS, [x, y])).as_element()
    if handle is None:
        return Landing()
    if depth < 5 and await handle.evaluate("(e) => e.tagName === 'IFRAME' || e.tagName === 'FRAME'"):
        inner = await handle.content_frame()
        if inner is not None:
            dx, dy = await handle.evaluate(FRAME_ORIGIN_JS)
            return await _at_point(inner, x - dx, y - dy, depth + 1)
    return _landing(await handle.evaluate(PRESSED_JS))


async def _focused(page: Page, enter: bool) -> Landing:
    frame = page.main_frame
    for _ in range(6):  # a frame inside a frame inside a frame is as deep as pages go
        found = await frame.evaluate(FOCUS_JS, enter)
        if found is not None:
            return _landing(found)
        active = (await frame.evaluate_handle(DEEP_FOCUS_JS)).as_element()
        inner = await active.content_frame() if active is not None else None
        if inner is None:
            return Landing()
        frame = inner
    return Landing()


async def _pressed(page: Page, run_on: RunOn, index: int | None, x: float | None,
                   y: float | None) -> Landing:
    if index is not None:
        return _landing(await run_on(index, PRESSED_JS))
    if x is not None and y is not None:
        return await _at_point(page.main_frame, x, y)
    return Landing()


async def landing(page: Page, action: Action, run_on: RunOn) -> Landing:
    """What `action` would activate on `page` right now; empty when it activates nothing."""
    try:
        if isinstance(action, A.Navigate):
            return Landing(words=str(await page.evaluate(AIMED_AT_JS, action.url)), url=action.url)
        if isinstance(action, A.Drag):  # the button goes down on one end and up on the other
            return _merge(await _pressed(page, run_on, action.index, action.x, action.y),
                          await _pressed(page, run_on, action.to_index, action.to_x, action.to_y))
        if A.presses_pointer(action):
            return await _pressed(page, run_on, getattr(action, "index", None),
                                  getattr(action, "x", None), getattr(action, "y", None))
        if A.submits(action):
            if isinstance(action, A.Type) and action.index is not None:
                return _landing(await run_on(action.index, SUBMITTED_FROM_JS))
            return await _focused(page, enter=True)
    except (ActionFailed, PlaywrightError):
        return Landing()  # the action itself will fail and say why
    return Landing()


async def held(page: Page, gone_of: int = 0) -> tuple[list[str], tuple[bool, str] | None]:
    """What the page's gate holds back in any frame: one "submit 'words'" per held form. With it,
    read in the same call to the top frame: whether its element `gone_of` (frame-local) left, and
    the page's signature; None when the top frame could not be asked."""
    found: list[str] = []
    after: tuple[bool, str] | None = None
    for frame in page.frames:
        try:
            if frame is page.main_frame:
                texts, left, signature = await evaluate(frame, HELD_AFTER_JS, [gone_of])
                after = (bool(left), str(signature))
            else:
                texts = await evaluate(frame, HELD_JS)
            found += [f"submit {str(text)!r}" for text in texts]
        except PlaywrightError:
            continue
    return found, after


async def release(page: Page, token: str) -> list[str]:
    """Lets the held forms through, in every frame; the words of each form submitted."""
    released: list[str] = []
    for frame in page.frames:
        try:
            released += [str(text) for text in await frame.evaluate(RELEASE_JS, token)]
        except PlaywrightError:
            continue
    return released

"""Actions that need to understand a widget: choosing an option, handing over a file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.browser import checks as js
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser.pages import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands

CHOOSER_TIMEOUT_MS = 3_000

# The option of a native select named `o` by its text, its value, or the shortened text the look
# gave a long one ("Authentication…| permission | Can add permission": its parts in order); its value.
NATIVE_OPTION_JS = """(e, o) => {
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim();
  const options = Array.from(e.options);
  const bare = norm(o).replace(/ ✓$/, "");
  const low = bare.toLowerCase();
  const parts = low.split("…").map((p) => p.trim()).filter(Boolean);
  const shortened = (text) => {
    const t = text.toLowerCase();
    let at = 0;
    for (const p of parts) {
      const i = t.indexOf(p, at);
      if (i < 0 || (at === 0 && i > 0 && !low.startsWith("…"))) return false;
      at = i + p.length;
    }
    return low.endsWith("…") || at === t.length;
  };
  const hit = options.find((x) => norm(x.text) === bare || x.value === o)
    || options.find((x) => norm(x.text).toLowerCase() === low);
  if (hit) return hit.value;
  const likely = bare.includes("…") && parts.length ? options.filter((x) => shortened(norm(x.text))) : [];
  return likely.length === 1 ? likely[0].value : null;
}"""

# The options a person would take for `o` when it names none exactly: those holding most of its
# words (or their stems: "aliases" finds "alias"), best first.
OPTIONS_LIKE_JS = """(e, o) => {
  const stems = o.toLowerCase().split(/[\\s…|,]+/).filter((w) => w.length > 1)
    .map((w) => w.slice(0, Math.max(4, w.length - 2)));
  const texts = Array.from(e.options).map((x) => x.text.replace(/\\s+/g, " ").trim());
  const score = (t) => stems.filter((w) => t.toLowerCase().includes(w)).length;
  const like = texts.map((t, i) => [score(t), i]).filter(([n]) => n > 0).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return (like.length ? like.map(([, i]) => texts[i]) : texts).slice(0, 8);
}"""

# The native select a drawn dropdown stands in for: the one inside it, or the hidden one just before
# an element that opens a list (as the look reads such a dropdown); the element itself when it is
# a select.
NATIVE_BEHIND_JS = """e => {
  if (e.tagName === "SELECT") return e;
  const inside = e.querySelectorAll("select");
  if (inside.length) return inside.length === 1 ? inside[0] : null;
  const before = e.previousElementSibling;
  const opens = e.hasAttribute("aria-haspopup") || ["combobox", "listbox"].includes(e.getAttribute("role"));
  if (!opens || !before || before.tagName !== "SELECT") return null;
  const r = before.getBoundingClientRect();
  const st = getComputedStyle(before);
  const unseen = r.width <= 1 || r.height <= 1 || st.visibility === "hidden" || Number(st.opacity) === 0;
  return unseen ? before : null;
}"""

# Whether the select holds the option of value `v` (among others, for a `multiple` one).
HOLDS_JS = "(e, v) => Array.from(e.selectedOptions).some((o) => o.value === v)"
OPTION_TEXT_JS = "(e, v) => (Array.from(e.options).find((o) => o.value === v)?.text || '').replace(/\\s+/g, ' ').trim()"

# The item a drawn dropdown shows for the option `text`, in view: inside the dropdown, in the
# popup it controls, or in a list the page put elsewhere (jQuery UI appends its menu to the body).
DRAWN_OPTION_JS = """(el, text) => {
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const want = norm(text);
  const root = el.getRootNode();
  const byId = (id) => id && (root.getElementById ? root : document).getElementById(id);
  const controlled = [el, ...el.querySelectorAll("[aria-controls], [aria-owns]")]
    .flatMap((x) => [x.getAttribute("aria-controls"), x.getAttribute("aria-owns")]).map(byId);
  const ITEMS = "li, [role=option], [role=menuitem], [role=menuitemradio], [role=treeitem]";
  const scopes = [[el, "*"], ...controlled.filter(Boolean).map((c) => [c, "*"]), [document, ITEMS]];
  const seen = (x) => {
    const r = x.getBoundingClientRect();
    const st = getComputedStyle(x);
    return r.width > 1 && r.height > 1 && st.visibility !== "hidden" && Number(st.opacity) !== 0;
  };
  for (const [scope, which] of scopes) {
    const hits = Array.from(scope.querySelectorAll(which))
      .filter((x) => !x.closest("select") && norm(x.innerText) === want && seen(x));
    if (hits.length) return hits[hits.length - 1];
  }
  return null;
}"""

# What a `multiple` list has chosen (values or texts); null for a list that holds one choice.
CHOSEN_JS = """(e, key) => e.multiple
  ? Array.from(e.selectedOptions).map(o => key === "text" ? o.text.trim() : o.value) : null"""
SELECTABLE_JS = """e => ["combobox", "listbox", "menu", "menubar", "tree", "radiogroup", "tablist"]
  .includes(e.getAttribute("role")) || e.hasAttribute("aria-haspopup") || e.hasAttribute("aria-controls")"""


async def select_option(op: BrowserHands, action: A.SelectOption) -> str:
    element = await op.elements.element(action.index)
    if await element.evaluate("e => e.tagName") != "SELECT":
        native = (await element.evaluate_handle(NATIVE_BEHIND_JS)).as_element()
        if native is not None:
            return await _select_drawn(op, action, element, native)
        return await _select_custom(op, action)
    match = await _native_match(element, action)
    wanted = [match]
    if action.keep_others:  # a list that holds one choice has no others to keep
        wanted += [v for v in await element.evaluate(CHOSEN_JS, "value") or [] if v != match]
    chosen = await element.select_option(value=wanted, timeout=ACTION_TIMEOUT_MS)
    if match not in chosen:
        raise ActionFailed(Outcome.NO_EFFECT, f"[{action.index}] did not take {action.option!r}")
    await op.after_input()
    now = await element.evaluate(CHOSEN_JS, "text")
    chosen_now = f" (chosen now: {', '.join(now)})" if now else ""
    return f"selected {action.option!r} in [{action.index}]{chosen_now}"


async def _native_match(select: ElementHandle, action: A.SelectOption) -> str:
    """The value of the option `action.option` names, or why there is none, with the options
    nearest to what was asked (a long list's first twenty rarely hold them)."""
    match = await select.evaluate(NATIVE_OPTION_JS, action.option)
    if match is None:
        like = await select.evaluate(OPTIONS_LIKE_JS, action.option)
        raise ActionFailed(Outcome.TARGET_NOT_FOUND, f"[{action.index}] has no option {action.option!r}; "
                           f"its options nearest to it: {like}")
    return str(match)


async def _select_drawn(op: BrowserHands, action: A.SelectOption, dropdown: ElementHandle,
                        native: ElementHandle) -> str:
    """A dropdown the page draws over a native select it hides: chosen as a person does, by
    opening it and clicking the option; the hidden select, which the page's form reads, says
    whether it took."""
    match = await _native_match(native, action)
    if await native.evaluate(HOLDS_JS, match):
        return f"{action.option!r} is already chosen in [{action.index}]"
    text = await native.evaluate(OPTION_TEXT_JS, match)
    item = (await dropdown.evaluate_handle(DRAWN_OPTION_JS, text)).as_element()
    if item is None:
        opener = await op.elements.ready_for_pointer(action.index)
        await opener.click(timeout=ACTION_TIMEOUT_MS)
        await op.after_input()
        item = (await dropdown.evaluate_handle(DRAWN_OPTION_JS, text)).as_element()
    if item is None:
        raise ActionFailed(Outcome.TARGET_NOT_FOUND, f"[{action.index}] shows no option {text!r} to click, "
                           "even after opening it; observe again to see what it offers")
    await item.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
    await item.click(timeout=ACTION_TIMEOUT_MS)
    await op.after_input()
    if not await native.evaluate(HOLDS_JS, match):
        raise ActionFailed(Outcome.NO_EFFECT, f"clicked the option {text!r} of [{action.index}] but it did not take")
    return f"selected {action.option!r} in [{action.index}]"


# The box a combobox filters its options by: itself, a field inside it, or the field its opening focused.
SEARCH_FIELD_JS = """(e) => {
  const typable = (f) => f && f.tagName === "INPUT" && !f.readOnly && !f.disabled
    && ["text", "search", ""].includes((f.getAttribute("type") || "").toLowerCase());
  if (typable(e)) return e;
  const inside = [...e.querySelectorAll("input")].find(typable);
  if (inside) return inside;
  const focused = document.activeElement;
  return typable(focused) && (e.contains(focused) || focused.getAttribute("role") === "combobox") ? focused : null;
}"""


async def _select_custom(op: BrowserHands, action: A.SelectOption) -> str:
    """A listbox or combobox made of ARIA roles: open it if needed, click the option, check."""
    element = await op.elements.element(action.index)
    if not await element.evaluate(SELECTABLE_JS):
        raise ActionFailed(
            Outcome.NOT_ACTIONABLE,
            f"[{action.index}] is not a select, listbox or combobox; click it and pick the option instead",
        )
    option = (await element.evaluate_handle(js.FIND_OPTION_JS, action.option)).as_element()
    if option is None:
        opener = await op.elements.ready_for_pointer(action.index)
        await opener.click(timeout=ACTION_TIMEOUT_MS)
        await op.after_input()
        option = (await element.evaluate_handle(js.FIND_OPTION_JS, action.option)).as_element()
    search = (await element.evaluate_handle(SEARCH_FIELD_JS)).as_element() if option is None else None
    if search is not None:
        # A long list drawn only in part (a virtualised one: baseweb's, react-select's) shows the
        # option once its name is typed into the box, as a person narrows it.
        await search.focus()
        await op.page.keyboard.type(action.option)
        await op.after_input()
        option = (await element.evaluate_handle(js.FIND_OPTION_JS, action.option)).as_element()
    if option is None:
        raise ActionFailed(
            Outcome.TARGET_NOT_FOUND,
            f"[{action.index}] shows no option {action.option!r}, even after opening it; "
            "observe again to see what it offers",
        )
    await option.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
    await option.click(timeout=ACTION_TIMEOUT_MS)
    await op.after_input()
    if not await element.evaluate(js.CHOSEN_JS, [option, action.option]):
        raise ActionFailed(
            Outcome.NO_EFFECT,
            f"clicked the option {action.option!r} of [{action.index}] but it does not show as chosen",
        )
    return f"selected {action.option!r} in [{action.index}]"


async def upload_file(op: BrowserHands, action: A.UploadFile) -> str:
    path = Path(action.path).expanduser()
    if not path.is_file():
        raise ActionFailed(Outcome.TARGET_NOT_FOUND, f"there is no file {path} on this machine")
    element = await op.elements.element(action.index)
    if await element.evaluate("e => e.tagName === 'INPUT' && e.type === 'file'"):
        await element.set_input_files(path, timeout=ACTION_TIMEOUT_MS)
        target = element
    else:
        pointer = await op.elements.ready_for_pointer(action.index)
        try:
            async with op.page.expect_file_chooser(timeout=CHOOSER_TIMEOUT_MS) as chooser_info:
                await pointer.click(timeout=ACTION_TIMEOUT_MS)
            chooser = await chooser_info.value
        except PlaywrightTimeout as exc:
            raise ActionFailed(
                Outcome.NOT_ACTIONABLE, f"[{action.index}] is not a file input and opened no file picker"
            ) from exc
        await chooser.set_files(path, timeout=ACTION_TIMEOUT_MS)
        target = chooser.element
    try:
        names = await target.evaluate("e => Array.from(e.files || []).map(f => f.name)")
    except PlaywrightError:
        names = []
    if path.name not in names:
        raise ActionFailed(Outcome.NO_EFFECT, f"[{action.index}] did not take the file {path.name}")
    await op.after_input()
    return f"put {path.name} ({path.stat().st_size} bytes) into [{action.index}]"

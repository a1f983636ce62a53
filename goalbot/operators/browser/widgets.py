"""Actions that need to understand a widget: choosing an option, handing over a file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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

NATIVE_OPTION_JS = """(e, o) => {
  const hit = Array.from(e.options).find(x => x.text.trim() === o || x.value === o)
    || Array.from(e.options).find(x => x.text.trim().toLowerCase() === o.trim().toLowerCase());
  return hit ? hit.value : null;
}"""

# What a `multiple` list has chosen (values or texts); null for a list that holds one choice.
CHOSEN_JS = """(e, key) => e.multiple
  ? Array.from(e.selectedOptions).map(o => key === "text" ? o.text.trim() : o.value) : null"""
SELECTABLE_JS = """e => ["combobox", "listbox", "menu", "menubar", "tree", "radiogroup", "tablist"]
  .includes(e.getAttribute("role")) || e.hasAttribute("aria-haspopup") || e.hasAttribute("aria-controls")"""


async def select_option(op: BrowserHands, action: A.SelectOption) -> str:
    element = await op.elements.element(action.index)
    if await element.evaluate("e => e.tagName") == "SELECT":
        match = await element.evaluate(NATIVE_OPTION_JS, action.option)
        if match is None:
            options = await element.evaluate("e => Array.from(e.options).map(o => o.text.trim())")
            raise ActionFailed(
                Outcome.TARGET_NOT_FOUND,
                f"[{action.index}] has no option {action.option!r}; it has {options[:20]}",
            )
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
    return await _select_custom(op, action)


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

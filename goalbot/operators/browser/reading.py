"""Reading a page for extraction: its text (or one element's), where extracted data sits on it,
the data read back from those places with no model, and the elements of one record in a list.
Only the main frame is read: a place names no frame."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from goalbot.operators.base import Located, ReadBack, Shown

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands


@cache
def _script() -> str:
    return resources.files(__package__).joinpath("places.js").read_text(encoding="utf-8")


async def _run(op: BrowserHands, mode: str, arg: object) -> Any:
    return await op.page.main_frame.evaluate(_script(), [mode, arg])


def _local(op: BrowserHands, index: int | None) -> int:
    """Element `[index]`'s place in the main frame's list; 0 for none, or one in another frame."""
    if index is None or not 1 <= index <= len(op.elements.targets):
        return 0
    target = op.elements.targets[index - 1]
    return target.local if target.frame is op.page.main_frame else 0


async def page_text(op: BrowserHands, scope: int | None) -> str:
    try:
        return str(await _run(op, "text", _local(op, scope)) or "")
    except PlaywrightError:
        return ""


async def places_of(op: BrowserHands, data: Any, scope: int | None) -> Located | None:
    try:
        found = await _run(op, "locate", {"data": data, "scope": _local(op, scope)})
    except PlaywrightError:
        return None
    return Located.model_validate(found) if found else None


async def read_places(op: BrowserHands, place: dict[str, Any]) -> ReadBack:
    try:
        return ReadBack.model_validate(await _run(op, "read", place))
    except PlaywrightError as exc:
        return ReadBack(data=None, misses=[f"the page could not be read: {exc.message.splitlines()[0]}"])


async def shown(op: BrowserHands, noun: str, fields: list[str], scope: int | None) -> Shown:
    try:
        return Shown.model_validate(await _run(op, "shown", {"noun": noun, "fields": fields,
                                                             "scope": _local(op, scope)}))
    except PlaywrightError:
        return Shown()


async def items(op: BrowserHands, each: str, nth: int) -> list[int]:
    """The indexes of the listed elements in the `nth` element `each` matches (itself, then the
    buttons, links and fields inside it, in page order)."""
    try:
        locals_ = await _run(op, "item", {"each": each, "nth": nth})
    except PlaywrightError:
        return []
    main = op.page.main_frame
    index = {t.local: n for n, t in enumerate(op.elements.targets, 1) if t.frame is main}
    return [index[local] for local in locals_ or [] if local in index]

"""What identifies an element beyond its index: the evidence a recipe keeps to find it again on a
later visit (its test id, id, tag, CSS path, XPath, label, placeholder, the text around it and the
dialog or cookie banner it sits in),
and the search that finds an element again by one strict locator, a unique match only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from goalbot.operators.browser.checks import SIGNATURE_JS
from goalbot.operators.browser.evidence_js import EVIDENCE_JS, LISTED_BY_SELECTOR_JS
from goalbot.operators.browser.scripts import evaluate

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands


async def evidence_of(op: BrowserHands, index: int) -> dict[str, str]:
    """The evidence of element `[index]` of the latest observation, and the address of its frame."""
    known = op.elements.evidence.get(index)
    if known is not None:
        return known
    return _as_evidence(await op.elements.run(index, EVIDENCE_JS), op.elements.frame_url(index))


def _as_evidence(found: dict[str, object], frame_url: str) -> dict[str, str]:
    return {**{k: str(v) for k, v in found.items()}, "frame": frame_url}


async def listed_by_selector(op: BrowserHands, selector: str,
                             answered: tuple[Frame, list[Any]] | None = None) -> int | None:
    """The index, in the latest observation, of the one element `selector` matches on the page
    (in any of its frames); None when it matches none, several, or one that is not listed.
    `answered`: a frame and its answer (LISTED_BY_SELECTOR_JS's), given by the look just taken."""
    frames = list(dict.fromkeys(target.frame for target in op.elements.targets))
    hits: list[int | None] = []
    for frame in frames:
        if answered is not None and frame is answered[0]:
            local, found = answered[1]
        else:
            try:
                local, found = await evaluate(frame, LISTED_BY_SELECTOR_JS, [selector])
            except PlaywrightError:
                continue
        if local:
            index = next((n for n, t in enumerate(op.elements.targets, 1)
                          if t.frame is frame and t.local == local), None)
            if index is not None and found:
                op.elements.evidence[index] = _as_evidence(found, frame.url)
            hits.append(index)
    return hits[0] if len(hits) == 1 else None


# true: the element left this document (removed, or no longer drawn); null: a new document, which
# is the address's business, not this check's.
GONE_JS = """(i) => {
  if (!window.__goalbot) return null;
  const el = window.__goalbot.elements[i - 1];
  if (!el || !el.isConnected) return true;
  const style = getComputedStyle(el);
  return style.visibility === "hidden" || style.display === "none" || el.getClientRects().length === 0;
}"""
GONE_AND_SIGNATURE_JS = f"(i) => [({GONE_JS})(i), ({SIGNATURE_JS})()]"


async def gone(op: BrowserHands, index: int) -> tuple[bool, str | None]:
    """Whether element `[index]` of the latest observation has left a page that is still there;
    and the page's signature, read in the same call when the element is in the top frame."""
    if not 1 <= index <= len(op.elements.targets):
        return False, None
    target = op.elements.targets[index - 1]
    if target.frame.is_detached():
        return False, None
    try:
        if target.frame is op.page.main_frame:
            left, signature = await evaluate(target.frame, GONE_AND_SIGNATURE_JS, target.local)
            return bool(left), str(signature)
        return bool(await evaluate(target.frame, GONE_JS, target.local)), None
    except PlaywrightError:
        return False, None  # navigating right now: the page did not stay

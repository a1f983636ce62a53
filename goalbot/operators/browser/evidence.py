"""What identifies an element beyond its index: the evidence a recipe keeps to find it again on a
later visit (its test id, id, tag, CSS path, XPath, label, placeholder, the text around it and the
dialog or cookie banner it sits in),
and the search that finds an element again by one strict locator, a unique match only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from goalbot.operators.browser.checks import SIGNATURE_JS
from goalbot.operators.browser.scripts import evaluate

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands

TEST_ID_ATTRIBUTES = ("data-testid", "data-test-id", "data-test", "data-qa", "data-cy")

EVIDENCE_JS = """(el) => {
  const squash = (s, n) => (s || "").replace(/\\s+/g, " ").trim().slice(0, n);
  // An id full of digits or hex was made by a framework for this visit, not by the site's authors.
  const stable = (id) => id && !/\\d{3,}|[0-9a-f]{8,}|^:r/i.test(id) ? id : "";
  const nth = (e) => {
    let n = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n += 1;
    return n;
  };
  const css = [];
  const xpath = [];
  let anchored = false;
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const tag = e.tagName.toLowerCase();
    xpath.unshift(`${tag}[${nth(e)}]`);
    if (anchored) continue;
    if (stable(e.id)) {
      css.unshift(`#${CSS.escape(e.id)}`);
      anchored = true;
    } else if (tag === "html" || tag === "body") {
      css.unshift(tag);
      anchored = true;
    } else {
      css.unshift(`${tag}:nth-of-type(${nth(e)})`);
    }
  }
  const testIds = __TEST_IDS__;
  const testId = testIds.map((a) => el.getAttribute(a)).find(Boolean) || "";
  const row = el.parentElement && el.parentElement.closest("li, tr, [role=row], label, fieldset, p, section, form");
  // The interstitial the element sits in, if any: a dialog, or a banner about cookies or consent.
  const over = el.closest("dialog, [role=dialog], [role=alertdialog], [aria-modal=true]") || el.closest(
    ["cookie", "consent"].map((w) => `[id*=${w} i], [class*=${w} i], [aria-label*=${w} i]`).join(", "));
  const overName = over && (over.getAttribute("aria-label") || over.getAttribute("role") || over.tagName.toLowerCase());
  return {
    tag: el.tagName.toLowerCase(), id: stable(el.id), test_id: testId, css: css.join(" > "),
    xpath: "/" + xpath.join("/"),
    label: squash(el.labels && el.labels.length ? el.labels[0].innerText : "", 80),
    placeholder: squash(el.getAttribute("placeholder"), 80),
    nearby: squash(row ? row.innerText : "", 80),
    overlay: squash(overName, 60),
  };
}""".replace("__TEST_IDS__", str(list(TEST_ID_ATTRIBUTES)))

# The index of the one listed element that `selector` matches in this frame (0 for none or
# several), and its evidence: what the action on it will be recorded with.
LISTED_BY_SELECTOR_JS = """([selector]) => {
  let found;
  try { found = document.querySelectorAll(selector); } catch { return [0, null]; }
  if (found.length !== 1 || !window.__goalbot) return [0, null];
  const local = window.__goalbot.elements.indexOf(found[0]) + 1;
  return [local, local ? (""" + EVIDENCE_JS + """)(found[0]) : null];
}"""


async def evidence_of(op: BrowserHands, index: int) -> dict[str, str]:
    """The evidence of element `[index]` of the latest observation, and the address of its frame."""
    known = op.elements.evidence.get(index)
    if known is not None:
        return known
    return _as_evidence(await op.elements.run(index, EVIDENCE_JS), op.elements.frame_url(index))


def _as_evidence(found: dict[str, object], frame_url: str) -> dict[str, str]:
    return {**{k: str(v) for k, v in found.items()}, "frame": frame_url}


async def listed_by_selector(op: BrowserHands, selector: str) -> int | None:
    """The index, in the latest observation, of the one element `selector` matches on the page
    (in any of its frames); None when it matches none, several, or one that is not listed."""
    frames = list(dict.fromkeys(target.frame for target in op.elements.targets))
    hits: list[int | None] = []
    for frame in frames:
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

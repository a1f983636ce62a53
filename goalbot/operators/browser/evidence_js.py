"""The page-side half of `evidence.py`: what identifies an element, and the one listed element a
selector matches. Apart, so the look installed in every document (`scripts.py`) can answer a
selector in the same call as the look."""

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

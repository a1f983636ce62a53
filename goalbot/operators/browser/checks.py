"""Scripts run on one element before and after an action, to tell the model the truth about it."""

from __future__ import annotations

# Element [i] of the latest look, or null when it has left the page.
FIND_JS = ("i => { const e = window.__goalbot && window.__goalbot.elements[i - 1]; "
           "return e && e.isConnected ? e : null; }")


# Element [i] to type into, or why not: "gone", or "it is disabled".
FIELD_JS = """i => {
  const e = window.__goalbot && window.__goalbot.elements[i - 1];
  if (!e || !e.isConnected) return "gone";
  if (e.disabled || e.getAttribute("aria-disabled") === "true") return "it is disabled";
  return e;
}"""


def on_element(script: str) -> str:
    """`script(element, arg)` run on element [i] in one call: {value} or {gone}, as FIND_JS finds it."""
    return ("([i, arg]) => { const e = window.__goalbot && window.__goalbot.elements[i - 1]; "
            "if (!e || !e.isConnected) return {gone: true}; return {value: (" + script + ")(e, arg)}; }")

CAPTCHA_SELECTOR = (
    ".g-recaptcha, .h-captcha, .cf-turnstile, iframe[src*='recaptcha'], iframe[src*='hcaptcha'], "
    "iframe[src*='challenges.cloudflare.com']"
)

# Why a pointer action on this element cannot work, in words for the model; null when it can.
PROBLEM_JS = """(el, captcha) => {
  if (el.closest(captcha)) return "captcha";
  if (el.disabled || el.getAttribute("aria-disabled") === "true") return "it is disabled";
  const target = (el.labels && el.labels.length && el.getBoundingClientRect().width <= 1)
    ? el.labels[0] : el;
  const r = target.getBoundingClientRect();
  const st = getComputedStyle(target);
  if (r.width <= 1 || r.height <= 1 || st.visibility === "hidden") return "it is hidden";
  const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
  const root = target.getRootNode();
  const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
  if (!hit || hit === target || target.contains(hit) || hit.contains(target)) return null;
  if (hit.tagName === "LABEL" && hit.control === el) return null;
  const words = (hit.getAttribute("aria-label") || hit.innerText || "").replace(/\\s+/g, " ").trim();
  return `it is covered by ${hit.tagName.toLowerCase()} "${words.slice(0, 40)}"`;
}"""

# A visually hidden checkbox or file input is operated through its label, as a person would.
POINTER_TARGET_JS = """el => {
  const r = el.getBoundingClientRect();
  const faded = Number(getComputedStyle(el).opacity) === 0;
  return ((r.width <= 1 || r.height <= 1 || faded) && el.labels && el.labels.length) ? el.labels[0] : el;
}"""

# Everything a click needs from the page in one call: element [i] still there, the part a person
# points at (a hidden checkbox's label), scrolled into view, why a person could not press it (as
# PROBLEM_JS says), and the point to press, in the viewport. {gone} | {problem} | {tag, x, y}.
POINT_JS = """([i, captcha]) => {
  const el = window.__goalbot && window.__goalbot.elements[i - 1];
  if (!el || !el.isConnected) return {gone: true};
  const target = (""" + POINTER_TARGET_JS + """)(el);
  let r = target.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    target.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    r = target.getBoundingClientRect();
  }
  const problem = (""" + PROBLEM_JS + """)(el, captcha);
  if (problem) return {problem};
  // the middle of the part in view: an element taller than the window is pressed where it shows
  const x = (Math.max(r.left, 0) + Math.min(r.right, innerWidth)) / 2;
  const y = (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2;
  const watch = window.__goalbotWatch;
  if (watch) watch.down = -1;
  return {tag: el.tagName, x, y, changes: watch ? watch.changes : -1};
}"""

VALUE_JS = "e => ('value' in e && typeof e.value === 'string') ? e.value : e.innerText"

# Whether typing into this element hands over a secret: what the field says it is, never where it is.
SECRET_JS = "(e) => e.type === 'password' || /password|one-time-code/.test(e.autocomplete || '')"

# The focused element of this document, inside open shadow roots.
DEEP_FOCUS_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}"""

# What has keyboard focus in this document: {where: "none" | "frame" | "control" | "field", value,
# multiline, secret}. "frame": it is in a child frame, whose document answers (keyboard.focused).
# A document being edited whole (designMode, a contenteditable body: a framed rich-text editor)
# has its focus on the body, and that body is the field.
FOCUSED_JS = """() => {
  const el = (""" + DEEP_FOCUS_JS + """)();
  if (!el) return { where: "none" };
  const page = el === document.body || el === document.documentElement;
  if (page && !el.isContentEditable && document.designMode !== "on") return { where: "none" };
  if (el.tagName === "IFRAME" || el.tagName === "FRAME") return { where: "frame" };
  const editable = el.isContentEditable || document.designMode === "on";
  const typed = editable || el.tagName === "TEXTAREA" || el.tagName === "SELECT"
    || (el.tagName === "INPUT" && !/^(button|submit|reset|image|checkbox|radio|file|range|color)$/.test(el.type));
  if (!typed) return { where: "control" };
  const value = ('value' in el && typeof el.value === 'string') ? el.value : el.innerText;
  return { where: "field", value, multiline: editable || el.tagName === "TEXTAREA",
    secret: (""" + SECRET_JS + """)(el) };
}"""

# Resolves once the page has not changed for `quiet` ms, the images in view and the data it reads
# have arrived, or after `most` ms whatever happens: a page that draws after its load event (a
# start screen, icons sized when their pictures come, a list drawn from a slow API) is looked at
# when it is done; one that never stops (a clock, a carousel) after the bound. It answers the
# page's change count then (as CHANGES_JS), which saves the look that follows a call.
SETTLED_JS = """async ([quiet, idle, most, loading]) => {
  const watch = window.__goalbotWatch;
  const sleep = (watch && watch.sleep) || setTimeout;
  // A document still loading is waited for first, within `loading` ms: half a page is no look.
  const loadStart = performance.now();
  while (document.readyState !== "complete" && performance.now() - loadStart < loading) {
    await new Promise((r) => sleep(r, 25));
  }
  const start = performance.now();
  const ANSWER_MS = 25;
  const inView = (i) => {
    const r = i.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
  };
  // The load event counts as a change: pages start drawing in its handlers and timers.
  const loaded = () => (performance.getEntriesByType("navigation")[0] || {}).loadEventEnd || 0;
  while (performance.now() - start < most) {
    const still = performance.now() - Math.max(watch ? watch.lastChange : 0, loaded());
    // A page with nothing promised (no short timer, frame or request pending) has drawn after
    // a few frames; one with work pending gets the full quiet time, as any page without a watch.
    const needed = watch && watch.busy && !watch.busy() ? idle : quiet;
    // A response that just came is read and drawn by handlers no count sees (its body, then the DOM).
    const answering = !!watch && performance.now() - (watch.answered || 0) < ANSWER_MS;
    // Data the page is still fetching is drawn when it comes: a look before it shows half a page.
    const fetching = !!watch && !!watch.fetching && watch.fetching(most);
    const pictured = Array.from(document.images).every((i) => i.complete || !inView(i));
    // A document on its way out is waited for until it goes (this call then ends with it); one
    // still here `most` ms after (a download, an answer with no content) is staying after all.
    const leaving = !!watch && !!watch.leaving && performance.now() - watch.leaving < most;
    if (still >= needed && !answering && !fetching && pictured && !leaving) break;
    // Look again when the page could be calm, not a fixed tick later: every look waits this.
    await new Promise((r) => sleep(r, Math.min(25, Math.max(4, needed - still))));
  }
  return watch ? watch.changes : -1;
}"""

CHANGES_JS = "() => window.__goalbotWatch ? window.__goalbotWatch.changes : -1"

# SETTLED_JS's answer, and the count as the pointer's button last went down (-1: not since POINT_JS).
SETTLED_SINCE_DOWN_JS = ("async (settle) => { const changes = await (" + SETTLED_JS + ")(settle); "
                         "const watch = window.__goalbotWatch; return [changes, watch ? watch.down : -1]; }")

# The timers due within `within` ms (ids), and whether any of those or a request is still to come.
OWED_JS = "(within) => { const w = window.__goalbotWatch; return w && w.owed ? w.owed(within) : []; }"
OWES_JS = "(ids) => { const w = window.__goalbotWatch; return !!w && !!w.owes && w.owes(ids); }"

HAS_TEXT_JS = "t => !!document.body && document.body.innerText.includes(t)"

# The option of a custom listbox or combobox whose text (or value) matches, searched first in
# the popup the widget controls, then anywhere visible.
FIND_OPTION_JS = """(el, wanted) => {
  const root = el.getRootNode();
  const byId = (id) => id && (root.getElementById ? root : document).getElementById(id);
  const scopes = [byId(el.getAttribute("aria-controls")), byId(el.getAttribute("aria-owns")),
    el.getAttribute("role") === "listbox" ? el : null, root, document].filter(Boolean);
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const want = norm(wanted);
  for (const scope of scopes) {
    const options = Array.from(scope.querySelectorAll("[role=option], [role=menuitem], [role=menuitemradio], [role=treeitem]"))
      .filter((o) => o.getClientRects().length);
    const hit = options.find((o) => norm(o.innerText) === want || norm(o.getAttribute("data-value")) === want)
      || options.find((o) => norm(o.innerText).includes(want));
    if (hit) return hit;
  }
  return null;
}"""

CHOSEN_JS = """(el, [option, wanted]) => {
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const want = norm(wanted);
  if (option.isConnected && option.getAttribute("aria-selected") === "true") return true;
  if (option.isConnected && option.getAttribute("aria-checked") === "true") return true;
  const shown = norm("value" in el && typeof el.value === "string" ? el.value : el.innerText);
  return shown.includes(want);
}"""

# Changes when the page changes under the agent (another address, elements come or go, text is
# added or removed), not when a field's value changes.
SIGNATURE_JS = """() => location.href + "|" +
  document.querySelectorAll("a,button,input,select,textarea,[role],[onclick],[tabindex]").length + "|" +
  (document.body ? document.body.innerText.length : 0)"""

// Observes one frame the way a person sees it. Interactive elements inside `clip` (the part of
// this frame visible in the top-level viewport, in this frame's coordinates) are described with
// role, name, value and state, interleaved with short visible text in document order; elements
// outside it are only counted. Open shadow roots and scroll containers are walked; child frames
// become placeholders the operator fills by observing them in turn. Elements are kept in
// window.__goalbot so actions find them by index without touching the DOM.
({ clip, maxText }) => {
  const INPUT_ROLES = {
    checkbox: "checkbox", radio: "radio", range: "slider", button: "button", submit: "button",
    reset: "button", image: "button", search: "searchbox", number: "spinbutton", file: "button",
  };
  const TYPES_WORTH_SAYING = new Set(["password", "date", "time", "datetime-local", "file",
    "email", "number", "month", "week", "color", "tel", "url"]);
  const INTERACTIVE_ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab",
    "menuitem", "menuitemcheckbox", "menuitemradio", "option", "combobox", "listbox", "textbox",
    "searchbox", "slider", "spinbutton", "treeitem", "dialog", "alertdialog", "gridcell"]);
  const CONTAINERS = new Set(["dialog", "alertdialog", "scrollable"]);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK",
    "TITLE", "OPTION", "OPTGROUP", "DATALIST", "BR", "HR", "IMG", "CANVAS", "VIDEO", "AUDIO"]);
  const CAPTCHA = ".g-recaptcha, .h-captcha, .cf-turnstile, iframe[src*='recaptcha'], "
    + "iframe[src*='hcaptcha'], iframe[src*='challenges.cloudflare.com'], iframe[title*='captcha' i]";
  // Whole words only: "footprint" holds "otp", and a card's "security code" is no 2FA.
  const ONE_TIME = /one.?time|(^|[^a-z])(otp|2fa|mfa|totp)([^a-z]|$)|two.?factor|verification.?code/i;

  const watch = window.__goalbotWatch;
  const state = window.__goalbot || {};
  const known = state.known;
  const nowKnown = new WeakSet();
  const elements = [];
  const frames = [];
  const items = [];
  const pageHidden = { above: 0, below: 0, left: 0, right: 0 };
  let challenge = null;

  const shownText = (el) => (el.innerText !== undefined ? el.innerText : el.textContent) || "";
  const clean = (s, n = 80) => {
    s = (s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  };
  const intersects = (r, c) => r.right > c[0] && r.left < c[2] && r.bottom > c[1] && r.top < c[3];
  const narrow = (c, r) => [Math.max(c[0], r.left), Math.max(c[1], r.top),
    Math.min(c[2], r.right), Math.min(c[3], r.bottom)];
  const count = (hidden, r, c) => {
    if (r.bottom <= c[1]) hidden.above += 1;
    else if (r.top >= c[3]) hidden.below += 1;
    else if (r.right <= c[0]) hidden.left += 1;
    else hidden.right += 1;
  };
  // Containers whose content cannot stick out of their own box.
  const boxed = (el, style) => el.tagName === "TR" || el.tagName === "TBODY" || el.tagName === "LI"
    || (style.overflowX !== "visible" && style.overflowY !== "visible");
  const LIKELY_INTERACTIVE = "a[href], button, input:not([type=hidden]), select, textarea, [role=button], "
    + "[role=link], [role=checkbox], [role=option], [role=menuitem], [role=tab], [tabindex]:not([tabindex='-1']), "
    + "[onclick], [contenteditable=true]";
  const tiny = (r) => r.width <= 1 || r.height <= 1;

  // Elements fading or shrinking away right now: a person would not reach for them.
  const leaving = new Set();
  for (const animation of document.getAnimations ? document.getAnimations() : []) {
    const target = animation.effect && animation.effect.target;
    const frames = animation.effect && animation.effect.getKeyframes ? animation.effect.getKeyframes() : [];
    const last = frames[frames.length - 1] || {};
    const gone = (last.opacity !== undefined && Number(last.opacity) === 0) || last.visibility === "hidden"
      || /scale\(0(\.0*)?\)/.test(last.transform || "");
    if (target && gone && animation.playState === "running") leaving.add(target);
  }

  const modal = (() => {
    const open = Array.from(document.querySelectorAll("dialog[open]")).filter((d) => d.matches(":modal"));
    const aria = Array.from(document.querySelectorAll("[aria-modal='true']"))
      .filter((d) => d.getClientRects().length && getComputedStyle(d).visibility !== "hidden");
    return [...open, ...aria].pop() || null;
  })();

  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    const tag = el.tagName;
    if (tag === "A" && el.hasAttribute("href")) return "link";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return el.multiple ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "DIALOG") return "dialog";
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (t === "hidden") return null;
      return INPUT_ROLES[t] || "textbox";
    }
    return null;
  };
  const editableRoot = (el) => el.isContentEditable
    && !(el.parentElement && el.parentElement.isContentEditable);
  const interactiveRole = (el, role, style, parentCursor) => {
    if (role && INTERACTIVE_ROLES.has(role)) return role;
    if (editableRoot(el)) return "textbox";
    if (el.tagName === "LABEL" || el.tagName === "BODY" || el.tagName === "HTML") return null;
    const tabbable = el.hasAttribute("tabindex") && el.tabIndex >= 0;
    if (el.getAttribute("draggable") === "true") return role || "draggable";
    const listening = el.hasAttribute("onclick") || (watch && watch.clickables.has(el));
    const pointer = style.cursor === "pointer" && parentCursor !== "pointer";
    return tabbable || listening || pointer ? role || "clickable" : null;
  };

  // @names

  const where = (box) => `at (${Math.round(box.left + box.width / 2)}, ${Math.round(box.top + box.height / 2)})`;
  const drawn = []; // shapes in a drawing: look-alikes among them are told apart by where they are
  const describe = (el, role, box, isNew) => {
    const item = { kind: "element", role, name: nameOf(el, role), states: [], new: isNew,
      box: [box.left, box.top, box.width, box.height] };
    const tag = el.tagName;
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (TYPES_WORTH_SAYING.has(t)) item.input_type = t;
      if (t === "checkbox" || t === "radio") item.states.push(el.checked ? "checked" : "unchecked");
      else if (t === "password") item.value = el.value ? "•".repeat(Math.min(el.value.length, 8)) : "";
      else if (t === "file") item.value = Array.from(el.files || []).map((f) => f.name).join(", ");
      else if (!["button", "submit", "reset", "image"].includes(t)) item.value = clean(el.value, 60);
      if ((t === "range" || t === "number") && (el.min !== "" || el.max !== "")) {
        const step = el.step && el.step !== "1" && el.step !== "any" ? ` step ${el.step}` : "";
        item.states.push(`range ${el.min || "…"}–${el.max || "…"}${step}`);
      }
      const ph = el.getAttribute("placeholder");
      if (ph && clean(ph) !== item.name) item.placeholder = clean(ph, 40);
      const hint = `${el.name} ${el.id} ${el.autocomplete} ${item.name}`;
      if (el.autocomplete === "one-time-code" || (t !== "password" && ONE_TIME.test(hint))) {
        item.states.push("one-time-code");
        challenge = challenge || "2fa";
      }
    } else if (tag === "TEXTAREA") {
      item.input_type = "multi-line";
      item.value = clean(el.value, 60);
    } else if (tag === "SELECT") {
      item.value = Array.from(el.selectedOptions).map((o) => clean(o.text, 40)).join(", ");
      if (el.multiple) item.states.push("multiple");
      const options = Array.from(el.options);
      item.options = options.slice(0, 20).map((o) => clean(o.text, 40) + (el.multiple && o.selected ? " ✓" : ""));
      if (options.length > 20) item.options.push(`… ${options.length - 20} more`);
    } else if (role === "textbox" || role === "searchbox") {
      item.value = clean(el.innerText, 60);
    } else if (role === "combobox") {
      item.value = clean(el.value !== undefined ? el.value : el.innerText, 60);
    }
    const now = el.getAttribute("aria-valuenow");
    if (now !== null && !item.value) item.value = el.getAttribute("aria-valuetext") || now;
    const checked = el.getAttribute("aria-checked");
    if (checked !== null && !item.states.length) item.states.push(checked === "true" ? "checked" : "unchecked");
    if (el.getAttribute("aria-pressed") === "true") item.states.push("pressed");
    if (el.getAttribute("aria-selected") === "true") item.states.push("selected");
    const expanded = el.getAttribute("aria-expanded");
    if (expanded !== null) item.states.push(expanded === "true" ? "expanded" : "collapsed");
    if (el.disabled || el.getAttribute("aria-disabled") === "true") item.states.push("disabled");
    if (el.readOnly) item.states.push("readonly");
    if (el.getAttribute("aria-invalid") === "true") item.states.push("invalid");
    if (el.closest(CAPTCHA)) {
      item.states.push("captcha");
      challenge = "captcha";
    }
    if (el === document.activeElement || (el.getRootNode().activeElement === el)) item.states.push("focused");
    if (!item.name && !item.value) item.states.push(where(box));
    else if (el instanceof SVGElement) drawn.push([item, box]);
    return item;
  };

  // The centre of what is visible must reach the element itself, not a cover over it.
  const reachable = (el, box, c) => {
    const area = narrow(c, box);
    const x = (area[0] + area[2]) / 2;
    const y = (area[1] + area[3]) / 2;
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return true;
    return hit.tagName === "LABEL" && hit.control === el || (el.labels && Array.from(el.labels).some((l) => l.contains(hit)));
  };
  // A visually hidden checkbox or file input is operated through its visible label.
  const proxyBox = (el) => {
    if (el.tagName !== "INPUT" || !el.labels || !el.labels.length) return null;
    const r = el.labels[0].getBoundingClientRect();
    return tiny(r) ? null : r;
  };
  const scrolls = (el, style) => el !== document.body && el !== document.documentElement && (
    (/(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1)
    || (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1));

  // Inline formatting inside a sentence ("<b>Bob</b>: Lunch?", "Total: <b>$12</b> incl. tax") is
  // read with the sentence, in order, as a person reads it; anything else splits the text there.
  const PHRASING = new Set(["B", "STRONG", "I", "EM", "SPAN", "SMALL", "MARK", "CODE", "SUB", "SUP", "U",
    "S", "ABBR", "TIME", "Q", "CITE", "KBD", "VAR", "DFN", "DATA", "BDI", "BDO", "INS", "DEL", "FONT"]);
  const plainInline = (n, cursor) => {
    if (!PHRASING.has(n.tagName) || n.hasAttribute("role") || n.hasAttribute("tabindex")
      || n.hasAttribute("onclick") || (watch && watch.clickables.has(n)) || leaving.has(n)) return false;
    const st = getComputedStyle(n);
    if (!st.display.startsWith("inline") || st.visibility === "hidden" || st.cursor !== cursor) return false;
    for (const child of n.children) if (!plainInline(child, cursor)) return false;
    return true;
  };

  const visit = (el, ctx) => {
    if (SKIP.has(el.tagName) || el.inert || leaving.has(el)) return;
    if (modal && el !== modal && !el.contains(modal) && !modal.contains(el)) return;
    const style = getComputedStyle(el);
    if (style.display === "none") return;
    const rect = el.getBoundingClientRect();
    if (!intersects(rect, ctx.clip) && boxed(el, style)) {
      // Nothing inside can show; count what a person would find after scrolling, cheaply.
      const n = el.querySelectorAll(LIKELY_INTERACTIVE).length + (el.matches(LIKELY_INTERACTIVE) ? 1 : 0);
      for (let i = 0; i < n; i += 1) count(ctx.hidden, rect, ctx.clip);
      return;
    }
    const faded = Number(style.opacity) === 0;
    const shown = !faded && style.visibility !== "hidden" && !tiny(rect);
    const role = roleOf(el);
    const interactive = ctx.inSelect ? null : interactiveRole(el, role, style, ctx.cursor);
    let listed = null;
    if (interactive) {
      const box = shown ? rect : proxyBox(el);
      if (box) {
        nowKnown.add(el);
        if (!intersects(box, ctx.clip)) count(ctx.hidden, box, ctx.clip);
        else if (reachable(el, box, ctx.clip)) {
          elements.push(el);
          listed = describe(el, interactive, box, Boolean(known) && !known.has(el));
          listed.local = elements.length;
          items.push(listed);
        }
      }
    } else if ((el.tagName === "IFRAME" || el.tagName === "FRAME") && shown) {
      const x = rect.left + el.clientLeft + parseFloat(style.paddingLeft);
      const y = rect.top + el.clientTop + parseFloat(style.paddingTop);
      frames.push({ el, rect: [x, y, el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
        el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)] });
      items.push({ kind: "frame", slot: frames.length - 1,
        name: clean(el.title || el.name || el.getAttribute("aria-label") || "", 40),
        captcha: el.matches(CAPTCHA) });
      if (el.matches(CAPTCHA)) challenge = "captcha";
      return;
    }
    const reads = !interactive && shown && !ctx.inInteractive && intersects(rect, ctx.clip)
      && !(el.tagName === "LABEL" && el.control);
    const level = /^H[1-6]$/.test(el.tagName) ? Number(el.tagName[1]) : 0;
    const alert = ["alert", "status"].includes(el.getAttribute("role")) || el.hasAttribute("aria-live");
    let run = "";
    const said = () => {
      const text = clean(run, maxText);
      if (text) items.push({ kind: "text", text, heading: level, alert });
      run = "";
    };
    if (faded) return;
    let inner = { clip: ctx.clip, hidden: ctx.hidden, cursor: style.cursor,
      inInteractive: ctx.inInteractive || (Boolean(interactive) && !CONTAINERS.has(interactive)), inSelect: el.tagName === "SELECT" };
    if (scrolls(el, style) && intersects(rect, ctx.clip)) {
      const hidden = { above: 0, below: 0, left: 0, right: 0 };
      if (!listed && shown && reachable(el, rect, ctx.clip)) {
        elements.push(el);
        listed = describe(el, "scrollable", rect, Boolean(known) && !known.has(el));
        listed.local = elements.length;
        items.push(listed);
        nowKnown.add(el);
      }
      if (listed) {
        if (listed.role !== "scrollable") listed.states.push("scrollable");
        listed.hidden = hidden;
      }
      inner = { ...inner, clip: narrow(ctx.clip, rect), hidden: listed ? hidden : ctx.hidden };
    }
    if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child, inner);
    for (const node of el.childNodes) {
      if (node.nodeType === 3) run += reads ? node.textContent : "";
      else if (node.nodeType !== 1) continue;
      else if (reads && plainInline(node, style.cursor)) run += node.textContent;
      else {
        said();
        visit(node, inner);
      }
    }
    said();
  };

  const root = document.body || document.documentElement;
  if (root) visit(root, { clip, hidden: pageHidden, cursor: "auto", inInteractive: false, inSelect: false });
  const named = new Map();
  for (const [item] of drawn) named.set(`${item.role} ${item.name}`, (named.get(`${item.role} ${item.name}`) || 0) + 1);
  for (const [item, box] of drawn) if (named.get(`${item.role} ${item.name}`) > 1) item.states.push(where(box));
  if (!challenge && document.querySelector(CAPTCHA)) challenge = "captcha";
  Object.defineProperty(window, "__goalbot", {
    value: { elements, frames: frames.map((f) => f.el), known: nowKnown }, configurable: true,
  });
  const se = document.scrollingElement || document.documentElement;
  return {
    items,
    frames: frames.map((f) => f.rect),
    hidden: pageHidden,
    challenge,
    watched: Boolean(watch),
    title: document.title,
    scroll_x: Math.round(se.scrollLeft),
    scroll_y: Math.round(se.scrollTop),
    scroll_width: Math.round(se.scrollWidth),
    scroll_height: Math.round(se.scrollHeight),
    viewport_width: window.innerWidth,
    viewport_height: window.innerHeight,
    device_pixel_ratio: window.devicePixelRatio,
  };
}

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
  const LANDMARKS = new Set(["MAIN", "HEADER", "FOOTER", "NAV", "ASIDE", "SECTION", "FORM"]);
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
  // The body's and the root's overflow is the viewport's, not a box's (JupyterLab's body is
  // overflow: hidden with no height): it clips nothing of what is drawn in view.
  const boxed = (el, style) => el.tagName === "TR" || el.tagName === "TBODY" || el.tagName === "LI"
    || (el !== document.body && el !== document.documentElement
        && style.overflowX !== "visible" && style.overflowY !== "visible");
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
  // In a document edited whole (designMode: a framed editor) the root element is editable too;
  // the body is the field a person types into.
  const editableRoot = (el) => el.isContentEditable
    && !(el.parentElement && el.parentElement !== document.documentElement && el.parentElement.isContentEditable);
  const reactRoot = (el) => "_reactRootContainer" in el
    || Object.keys(el).some((key) => key.startsWith("__reactContainer$"));
  const interactiveRole = (el, role, style, parentCursor) => {
    if (role && INTERACTIVE_ROLES.has(role)) return role;
    if (editableRoot(el)) return "textbox";
    if (el.tagName === "LABEL" || el.tagName === "BODY" || el.tagName === "HTML") return null;
    // A landmark with a listener (a page's <main> that closes menus on a click, or tabbable to
    // scroll) holds the page; it is never one control that would hide the page's words.
    if (LANDMARKS.has(el.tagName)) return null;
    const tabbable = el.hasAttribute("tabindex") && el.tabIndex >= 0;
    if (el.getAttribute("draggable") === "true") return role || "draggable";
    // React listens for every click on the element it renders into, for all of the page.
    const listening = el.hasAttribute("onclick") || (watch && watch.clickables.has(el) && !reactRoot(el));
    const pointer = style.cursor === "pointer" && parentCursor !== "pointer";
    // A region that scrolls is often made tabbable so the keyboard can scroll it (Streamlit's
    // whole page is one): a scroll container, whose words are read, not a control that hides them.
    if (tabbable && !listening && !pointer && scrolls(el, style)) return null;
    return tabbable || listening || pointer ? role || "clickable" : null;
  };

  // @names

  // A select's options as a person sees them. A list box (multiple, or size > 1) shows a window
  // of its options in its own scroll box: those in view are listed, with the chosen ones and a
  // few on either side, and the rest counted above and below, so scrolling the list changes the
  // look. A dropdown shows them all once opened: all are listed up to LONG_DROPDOWN, else the
  // first ones and those around the chosen one. An option's text is shortened only past
  // OPTION_ROOM, keeping the part that tells it from the others.
  const OPTION_ROOM = 60;
  const AROUND = 2;
  const LONG_DROPDOWN = 30;
  const sharedStart = (a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
    return i;
  };
  const distinctTexts = (texts) => {
    const order = texts.map((t, i) => i).sort((a, b) => (texts[a] < texts[b] ? -1 : texts[a] > texts[b] ? 1 : 0));
    const shared = new Array(texts.length).fill(0);
    order.forEach((at, k) => {  // the longest start shared with any other is shared with a neighbour in sorted order
      if (k > 0) shared[at] = Math.max(shared[at], sharedStart(texts[at], texts[order[k - 1]]));
      if (k + 1 < order.length) shared[at] = Math.max(shared[at], sharedStart(texts[at], texts[order[k + 1]]));
    });
    return texts.map((t, i) => {
      if (t.length <= OPTION_ROOM) return t;
      // Its first word or two, then from a word boundary some way before where it differs, so the
      // words around the difference are read with it; without its start if that is still too long.
      const head = t.slice(0, t.lastIndexOf(" ", 16) > 6 ? t.lastIndexOf(" ", 16) : 16);
      const from = t.lastIndexOf(" ", shared[i] - 20) + 1;
      let kept = from > head.length + 4 ? `${head}…${t.slice(from)}` : t;
      if (kept.length > OPTION_ROOM && from > head.length + 4) kept = `…${t.slice(from)}`;
      return kept.length > OPTION_ROOM ? kept.slice(0, OPTION_ROOM - 1) + "…" : kept;
    });
  };
  const listWindow = (select, options) => {
    const r = select.getBoundingClientRect();
    const top = r.top + select.clientTop;
    const bottom = top + select.clientHeight;
    const inView = [];
    options.forEach((o, i) => {
      const b = o.getBoundingClientRect();
      if (b.height > 0 && b.bottom > top + 1 && b.top < bottom - 1) inView.push(i);
    });
    return inView.length ? [inView[0], inView[inView.length - 1]] : [0, Math.min(options.length, 20) - 1];
  };
  const describeOptions = (select, item) => {
    const options = Array.from(select.options);
    const texts = distinctTexts(options.map((o) => o.text.replace(/\s+/g, " ").trim()));
    const chosen = options.map((o, i) => (o.selected ? i : -1)).filter((i) => i >= 0);
    const said = chosen.map((i) => texts[i]);
    item.value = said.length > 4 ? `${said.slice(0, 4).join(", ")} and ${said.length - 4} more` : said.join(", ");
    if (select.multiple) item.states.push("multiple");
    const listBox = select.multiple || select.size > 1;
    const [first, last] = listBox ? listWindow(select, options)
      : options.length <= LONG_DROPDOWN ? [0, options.length - 1] : [0, 19];
    const from = Math.max(0, first - (listBox ? AROUND : 0));
    const to = Math.min(options.length - 1, last + (listBox ? AROUND : 0));
    const shown = new Set();
    for (let i = from; i <= to; i += 1) shown.add(i);
    for (const i of chosen) for (let j = i - (listBox ? 0 : 3); j <= i + (listBox ? 0 : 3); j += 1) {
      if (j >= 0 && j < options.length) shown.add(j);
    }
    const listed = Array.from(shown).sort((a, b) => a - b);
    item.options = [];
    listed.forEach((i, k) => {
      const gap = k > 0 ? i - listed[k - 1] - 1 : 0;
      if (gap) item.options.push(`… ${gap} more`);
      item.options.push(texts[i] + (select.multiple && options[i].selected ? " ✓" : ""));
    });
    const above = listed.length ? listed[0] : 0;
    const below = listed.length ? options.length - 1 - listed[listed.length - 1] : options.length;
    // A list box's are out of its view, scrolled to; a closed dropdown's are all one click away.
    if (listBox && (above || below)) item.hidden = { above, below, left: 0, right: 0 };
    else if (below) item.options.push(`… ${below} more`);
  };
  // A drawn dropdown (selectric, jQuery UI's selectmenu, …) stands in for the native select the
  // page hides inside it or just before it: it is read as that select, with its options.
  const standInFor = (el, clip) => {
    if (el.tagName === "SELECT") return null;
    const inside = el.querySelectorAll ? el.querySelectorAll("select") : [];
    // One just before it only for an element that says it opens a list: a button after a hidden
    // select is as often the row's own "Edit".
    const before = el.previousElementSibling;
    const opens = el.hasAttribute("aria-haspopup") || ["combobox", "listbox"].includes(el.getAttribute("role"));
    const select = inside.length === 1 ? inside[0]
      : !inside.length && opens && before && before.tagName === "SELECT" ? before : null;
    // A box that also holds a field, button or link a person sees is a form or a row, not a
    // dropdown (a drawn dropdown's own input for the keyboard is kept out of sight).
    const others = el.querySelectorAll
      ? Array.from(el.querySelectorAll("input:not([type=hidden]), textarea, button, a[href], [role=button], [role=link]")) : [];
    if (!select || others.some((f) => !tiny(f.getBoundingClientRect()))) return null;
    const style = getComputedStyle(select);
    const r = select.getBoundingClientRect();
    const hidden = style.display === "none" || style.visibility === "hidden" || Number(style.opacity) === 0
      || tiny(r) || !intersects(r, clip) || !reachable(select, r, clip);
    return hidden ? select : null;
  };

  const where = (box) => `at (${Math.round(box.left + box.width / 2)}, ${Math.round(box.top + box.height / 2)})`;
  const drawn = []; // shapes in a drawing: look-alikes among them are told apart by where they are
  const describe = (el, role, box, isNew, select = el.tagName === "SELECT" ? el : null) => {
    const item = { kind: "element", role, name: nameOf(select || el, role), states: [], new: isNew,
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
    } else if (select) {
      describeOptions(select, item);
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
    // A document's body is its active element whenever nothing else is: focused only with the keys.
    const keys = el !== document.body || document.hasFocus();
    if (keys && (el === document.activeElement || (el.getRootNode().activeElement === el))) item.states.push("focused");
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
          const select = standInFor(el, ctx.clip);
          const role = select ? (select.multiple ? "listbox" : "combobox") : interactive;
          listed = describe(el, role, box, Boolean(known) && !known.has(el), select || undefined);
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
    // A status or alert region announces the words of all it holds (a toast's <p>, a banner's
    // heading); a polite live region only its own, since some wrap a whole list of results.
    const region = ["alert", "status"].includes(el.getAttribute("role")) || el.getAttribute("aria-live") === "assertive";
    const alert = ctx.alert || region || el.hasAttribute("aria-live");
    let run = "";
    const said = () => {
      const text = clean(run, maxText);
      if (text) items.push({ kind: "text", text, heading: level, alert });
      run = "";
    };
    if (faded) return;
    let inner = { clip: ctx.clip, hidden: ctx.hidden, cursor: style.cursor, alert: ctx.alert || region,
      // A control with no box of its own (a wrapper of zero height) hides none of what it holds.
      inInteractive: ctx.inInteractive || (Boolean(interactive) && shown && !CONTAINERS.has(interactive)),
      inSelect: el.tagName === "SELECT" };
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
        listed.hidden = listed.hidden || hidden;  // a select has counted its own options
      }
      inner = { ...inner, clip: narrow(ctx.clip, rect), hidden: listed ? listed.hidden : ctx.hidden };
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
  if (root) visit(root, { clip, hidden: pageHidden, cursor: "auto", inInteractive: false, inSelect: false, alert: false });
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

// Walks the document and returns what a person sees: interactive elements with role, accessible
// name, value and state, interleaved with short visible text, in document order. The elements
// are kept in window.__goalbot so actions can find them by index without touching the DOM.
(maxText) => {
  const INPUT_ROLES = {
    checkbox: "checkbox", radio: "radio", range: "slider", button: "button", submit: "button",
    reset: "button", image: "button", search: "searchbox", number: "spinbutton",
  };
  const TYPES_WORTH_SAYING = new Set(["password", "date", "time", "datetime-local", "file",
    "email", "number", "month", "week", "color", "tel", "url"]);
  const INTERACTIVE_ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab",
    "menuitem", "menuitemcheckbox", "menuitemradio", "option", "combobox", "listbox", "textbox",
    "searchbox", "slider", "spinbutton", "treeitem"]);
  const TEXT_TAGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6", "P", "LABEL", "LI", "TD", "TH",
    "SPAN", "DIV", "LEGEND", "STRONG", "EM", "SMALL"]);

  const clean = (s, n = 80) => {
    s = (s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const st = getComputedStyle(el);
    return st.visibility !== "hidden" && st.display !== "none" && Number(st.opacity) !== 0;
  };
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    const tag = el.tagName;
    if (tag === "A" && el.hasAttribute("href")) return "link";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return el.multiple ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (t === "hidden") return null;
      return INPUT_ROLES[t] || "textbox";
    }
    if (el.isContentEditable) return "textbox";
    return null;
  };
  const labelText = (el) => {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id))
        .filter(Boolean).map((n) => n.innerText).join(" ");
      if (clean(t)) return t;
    }
    if (el.labels && el.labels.length) return Array.from(el.labels).map((l) => l.innerText).join(" ");
    return "";
  };
  const nameOf = (el, role) => {
    const aria = el.getAttribute("aria-label");
    if (aria && clean(aria)) return clean(aria);
    const label = labelText(el);
    if (clean(label)) return clean(label);
    if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return clean(el.value);
    if (el.tagName === "IMG" || el.tagName === "INPUT") {
      const alt = el.getAttribute("alt");
      if (alt) return clean(alt);
    }
    if (!["textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider"].includes(role)) {
      const text = clean(el.innerText);
      if (text) return text;
    }
    return clean(el.getAttribute("title") || el.getAttribute("placeholder") || "");
  };

  const seen = new Set();
  const items = [];
  const elements = [];
  const textOwners = new WeakSet();

  const describe = (el, role) => {
    const item = { kind: "element", role, name: nameOf(el, role), states: [] };
    const tag = el.tagName;
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (TYPES_WORTH_SAYING.has(t)) item.input_type = t;
      if (t === "checkbox" || t === "radio") item.states.push(el.checked ? "checked" : "unchecked");
      else if (t === "password") item.value = el.value ? "•".repeat(Math.min(el.value.length, 8)) : "";
      else if (!["button", "submit", "reset", "image"].includes(t)) item.value = clean(el.value, 60);
      const ph = el.getAttribute("placeholder");
      if (ph && clean(ph) !== item.name) item.placeholder = clean(ph, 40);
    } else if (tag === "TEXTAREA") {
      item.value = clean(el.value, 60);
    } else if (tag === "SELECT") {
      const chosen = Array.from(el.selectedOptions).map((o) => clean(o.text, 40));
      item.value = chosen.join(", ");
      item.options = Array.from(el.options).slice(0, 20).map((o) => clean(o.text, 40));
    } else if (el.isContentEditable) {
      item.value = clean(el.innerText, 60);
    }
    const ariaChecked = el.getAttribute("aria-checked");
    if (ariaChecked !== null && !item.states.length) {
      item.states.push(ariaChecked === "true" ? "checked" : "unchecked");
    }
    if (el.getAttribute("aria-selected") === "true") item.states.push("selected");
    const expanded = el.getAttribute("aria-expanded");
    if (expanded !== null) item.states.push(expanded === "true" ? "expanded" : "collapsed");
    if (el.disabled || el.getAttribute("aria-disabled") === "true") item.states.push("disabled");
    if (el === document.activeElement) item.states.push("focused");
    return item;
  };

  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = it.currentNode; el; el = it.nextNode()) {
      if (el.nodeType !== 1 || seen.has(el)) continue;
      const role = roleOf(el);
      const focusable = el.hasAttribute("tabindex") && el.getAttribute("tabindex") !== "-1";
      const interactive = (role && INTERACTIVE_ROLES.has(role)) || el.isContentEditable
        || (focusable && el.tagName !== "BODY") || el.hasAttribute("onclick");
      if (interactive && visible(el)) {
        seen.add(el);
        // Text inside an interactive element is already its name.
        el.querySelectorAll("*").forEach((c) => textOwners.add(c));
        textOwners.add(el);
        elements.push(el);
        const item = describe(el, role || "generic");
        item.index = elements.length;
        items.push(item);
        continue;
      }
      if (TEXT_TAGS.has(el.tagName) && !textOwners.has(el) && visible(el)) {
        const own = Array.from(el.childNodes).filter((n) => n.nodeType === 3)
          .map((n) => n.textContent).join(" ");
        const text = clean(own, maxText);
        if (text && !(el.tagName === "LABEL" && el.control)) {
          const level = /^H[1-6]$/.test(el.tagName) ? Number(el.tagName[1]) : 0;
          const alert = el.getAttribute("role") === "alert";
          items.push({ kind: "text", text, heading: level, alert });
        }
      }
    }
  };
  walk(document.body || document.documentElement);
  window.__goalbot = { elements };
  const se = document.scrollingElement || document.documentElement;
  return {
    items,
    scroll_y: Math.round(se.scrollTop),
    scroll_height: Math.round(se.scrollHeight),
    viewport_height: window.innerHeight,
    viewport_width: window.innerWidth,
    device_pixel_ratio: window.devicePixelRatio,
  };
}

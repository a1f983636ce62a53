// How an element is named, from every evidence a person or a screen reader would use: its
// label, the words on it, its tooltip, an icon's class words, the text beside it or in its row.
// Included into observe.js (at `// @names`), where `clean` and `shownText` are defined.
// Words in an icon's class or id that say nothing about what it does.
const NOT_ICON_WORDS = new Set(["icon", "icons", "btn", "button", "fa", "fas", "far", "fab", "fal",
  "svg", "glyph", "glyphicon", "material", "symbols", "outlined", "rounded", "sharp", "filled",
  "bi", "ion", "ui", "img", "image", "sm", "md", "lg", "xl", "xs", "js", "wrapper", "container",
  "inner", "outer", "item", "action", "actions", "control", "controls", "toolbar", "small", "large",
  "primary", "secondary", "default", "active", "hover", "left", "right", "top", "bottom", "pull",
  "ml", "mr", "mt", "mb", "px", "py", "flex", "inline", "block", "hidden", "visible", "text",
  "link", "clickable", "pointer", "col", "row", "the", "and", "for", "with", "css", "jsx", "svelte",
  "mat", "mdc", "mui", "chakra", "ant", "tw", "has", "is", "no", "not", "new", "old"]);
const NAMED_BY_CONTENT = new Set(["button", "link", "checkbox", "radio", "switch", "tab",
  "menuitem", "menuitemcheckbox", "menuitemradio", "option", "treeitem", "clickable", "gridcell",
  "draggable"]);
const byIds = (el, ids) => {
  const root = el.getRootNode();
  return ids.split(/\s+/).map((id) => (root.getElementById ? root : document).getElementById(id))
    .filter(Boolean).map((n) => shownText(n)).join(" ");
};
// What a person reads of a node: its text, its pictures' alt text, the label of an icon in it;
// never an HTML comment, a script or a style sheet, nor what is not drawn.
const UNREAD = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE"]);
const spokenText = (node, depth = 0) => {
  if (node.nodeType === 3) return node.textContent;
  if (node.nodeType !== 1 || depth > 8 || UNREAD.has(node.tagName)) return "";
  if (node.tagName === "IMG" || (node.tagName === "INPUT" && node.type === "image")) {
    return ` ${node.getAttribute("alt") || ""} `;
  }
  if (node.getAttribute("aria-hidden") === "true") return "";
  const st = getComputedStyle(node);
  if (st.display === "none" || st.visibility === "hidden") return "";
  const aria = node.getAttribute("aria-label");
  if (aria && clean(aria)) return ` ${aria} `;
  const words = Array.from(node.childNodes).map((n) => spokenText(n, depth + 1)).join("");
  return st.display.startsWith("inline") ? words : ` ${words} `;
};
// aria-labelledby that points inside the element itself names it by what it shows (select2's
// combobox points at its chosen value): that is its value, a name only when nothing else is.
const labelledBy = (el, own) => {
  const by = el.getAttribute("aria-labelledby");
  if (!by) return "";
  const root = el.getRootNode();
  const refs = by.split(/\s+/).map((id) => (root.getElementById ? root : document).getElementById(id)).filter(Boolean);
  const inside = refs.length > 0 && refs.every((r) => el.contains(r));
  return inside === own ? clean(byIds(el, by)) : "";
};
const labelsText = (el) => {
  if (!el.labels || !el.labels.length) return "";
  // A label that wraps its control would otherwise be named after the control's own options.
  const own = (label) => Array.from(label.childNodes)
    .filter((n) => n.nodeType === 3 || (n.nodeType === 1 && !n.contains(el) && !n.matches("select, textarea")))
    .map((n) => spokenText(n)).join(" ");
  return Array.from(el.labels).map(own).join(" ");
};
const labelText = (el) => labelledBy(el, false) || labelsText(el);
const unseen = (el) => {
  if (el.getAttribute("aria-hidden") === "true") return true;
  const r = el.getBoundingClientRect();
  const st = getComputedStyle(el);
  return r.width <= 1 || r.height <= 1 || st.display === "none" || st.visibility === "hidden";
};
// A drawn widget (select2's combobox, an editor's frame) stands in for the native field the page
// hides right before it or before the box it sits in: the label of that field names it.
const NATIVE_FIELDS = "select, textarea, input:not([type=hidden])";
const hiddenControlLabel = (el) => {
  let node = el;
  for (let up = 0; up < 5 && node && node !== document.body; up += 1, node = node.parentElement) {
    const before = node.previousElementSibling;
    if (before && before.matches(NATIVE_FIELDS) && unseen(before)) return clean(labelText(before));
  }
  return "";
};
// The nearest caption before a field, as a person reads down the page: a label, legend or heading
// before it or before the boxes it sits in, unless another field a person sees comes between.
const CAPTIONS = "label, legend, h1, h2, h3, h4, h5, h6";
const seenField = (node) => (node.matches(NATIVE_FIELDS) ? [node] : Array.from(node.querySelectorAll(NATIVE_FIELDS)))
  .some((f) => !unseen(f));
const precedingCaption = (el) => {
  let node = el;
  for (let up = 0; up < 5 && node && node !== document.body; up += 1, node = node.parentElement) {
    let before = node.previousElementSibling;
    for (let hops = 0; before && hops < 3; hops += 1, before = before.previousElementSibling) {
      const captions = before.matches(CAPTIONS) ? [before] : Array.from(before.querySelectorAll(CAPTIONS));
      const caption = captions[captions.length - 1];
      const othersLabel = caption && caption.tagName === "LABEL" && caption.control
        && caption.control !== el && !unseen(caption.control);
      if (caption && !othersLabel) {
        const text = clean(spokenText(caption), 200);
        if (text) return text.length <= LABEL_LENGTH ? text : "";
      }
      if (seenField(before)) return "";
    }
  }
  return "";
};
// A document edited whole inside a frame (TinyMCE, CKEditor 4) is named by the frame: its own
// name or label, the field it stands in for, the caption before it; its title last, since a
// frame's title ("Rich Text Area") is no word a person reads. A frame of another origin: none.
const frameHostName = () => {
  let host = null;
  try {
    host = window.frameElement;
  } catch (_) {
    return "";
  }
  if (!host) return "";
  return labelText(host) || clean(host.getAttribute("aria-label") || "") || hiddenControlLabel(host)
    || precedingCaption(host) || clean(host.title || "");
};
const LABEL_LENGTH = 50; // longer text beside a field is content, not its label
const FIELD_LIKE = "input:not([type=hidden]), select, textarea, button, [role=button], [contenteditable=true]";
const besideText = (el) => {
  let node = el.previousSibling;
  for (let hops = 0; node && hops < 4; hops += 1, node = node.previousSibling) {
    if (node.nodeType !== 1 && node.nodeType !== 3) continue;  // a comment is nothing a person reads
    // A control, or a toolbar of them, before the field: what is further back is not its label.
    if (node.nodeType === 1 && (node.matches(FIELD_LIKE) || node.querySelector(FIELD_LIKE))) break;
    if (node.textContent.length > 10 * LABEL_LENGTH) return "";  // an article, not a label: not read through
    const text = clean(spokenText(node), 200);
    if (text) return text.length <= LABEL_LENGTH ? text : "";
  }
  const cell = el.closest("td, th");
  if (!cell) return "";
  const row = cell.parentElement;
  const first = row && row.cells[0] !== cell ? clean(row.cells[0].innerText, 40) : "";
  const table = cell.closest("table");
  const head = table && table.tHead && table.tHead.rows[0];
  const column = head && head.cells[cell.cellIndex] ? clean(head.cells[cell.cellIndex].innerText, 30) : "";
  return [first, column].filter(Boolean).join(" · ");
};
// A field's label in the box it shares with no other field, on whichever side of it: a row
// `<input><div>Genre</div>`, a caption under the field. Links and buttons in the box are not it.
const FIELDS = "input:not([type=hidden]), select, textarea";
const NOT_A_LABEL = "a, button, select, textarea, input, [role=button], [role=link]";
const boxLabel = (el) => {
  let node = el;
  for (let up = 0; up < 2 && node.parentElement; up += 1) {
    const inner = node;
    node = node.parentElement;
    if (node.querySelectorAll(FIELDS).length !== 1) return "";
    const words = Array.from(node.childNodes).filter((n) => n !== inner)
      .map((n) => (n.nodeType === 3 ? n.textContent : n.nodeType === 1 && !n.matches(NOT_A_LABEL) ? shownText(n) : ""));
    const text = clean(words.join(" "), 200);
    if (text) return text.length <= LABEL_LENGTH ? text : "";
  }
  return "";
};
// What is drawn at a shape: words on or right beside it (a bar's value, a slice's label), else,
// on a grid of look-alikes, the ticks of its column and of its row: "point (-1, 0)".
const SHAPES = { circle: "point", ellipse: "point", rect: "box", path: "shape", polygon: "shape",
  line: "line", polyline: "line", use: "mark" };
const centreOf = (r) => [r.left + r.width / 2, r.top + r.height / 2];
const TICK_SLACK = 6; // px a tick's label may sit off its column's or row's centre line
const drawnTexts = new Map(); // per drawing, for this observation: its words and where they are
const OVER_MARGIN = 40; // px around a drawing where a page's own labels still belong to it
// Words a page lays over (or right around) a drawing as HTML of their own, as many charts draw
// their axis ticks: leaves of the drawing's container whose boxes touch the drawing's.
const laidOver = (svg) => {
  const area = svg.getBoundingClientRect();
  const scope = (svg.parentElement && svg.parentElement.parentElement) || document.body;
  const touches = (r) => r.right >= area.left - OVER_MARGIN && r.left <= area.right + OVER_MARGIN
    && r.bottom >= area.top - OVER_MARGIN && r.top <= area.bottom + OVER_MARGIN;
  return Array.from(scope.querySelectorAll("div, span, p, small, b, strong, label")).slice(0, 500)
    .filter((e) => !e.firstElementChild && !e.contains(svg))
    .map((e) => ({ words: clean(e.textContent, 40), r: e.getBoundingClientRect() }))
    .filter((t) => t.words && t.r.width > 0 && touches(t.r));
};
const textsOf = (svg) => {
  if (!drawnTexts.has(svg)) {
    drawnTexts.set(svg, Array.from(svg.querySelectorAll("text")).slice(0, 500)
      .map((t) => ({ words: clean(t.textContent, 40), r: t.getBoundingClientRect() }))
      .filter((t) => t.words && t.r.width > 0).concat(laidOver(svg)));
  }
  return drawnTexts.get(svg);
};
const drawnName = (el) => {
  const svg = el.ownerSVGElement;
  const kind = SHAPES[el.tagName.toLowerCase()];
  if (!svg || !kind) return "";
  const box = el.getBoundingClientRect();
  const [x, y] = centreOf(box);
  const texts = textsOf(svg);
  const away = (r) => Math.hypot(Math.max(r.left - x, 0, x - r.right), Math.max(r.top - y, 0, y - r.bottom));
  const nearest = (list, by) => list.reduce((best, t) => (best === undefined || by(t) < by(best) ? t : best), undefined);
  const on = nearest(texts.filter((t) => away(t.r) <= Math.max(6, Math.max(box.width, box.height) / 2)), (t) => away(t.r));
  if (on) return on.words;
  // A tick's label is one of a line of them (the axis name drawn at its end is not).
  const near = (a, b) => Math.abs(a - b) <= TICK_SLACK;
  const inRow = (t) => texts.filter((o) => near(centreOf(o.r)[1], centreOf(t.r)[1])).length >= 3;
  const inColumn = (t) => texts.filter((o) => near(o.r.left, t.r.left) || near(o.r.right, t.r.right)).length >= 3;
  const column = nearest(texts.filter((t) => near(centreOf(t.r)[0], x) && Math.abs(centreOf(t.r)[1] - y) > box.height
    && inRow(t)), (t) => Math.abs(centreOf(t.r)[1] - y));
  const row = nearest(texts.filter((t) => near(centreOf(t.r)[1], y) && Math.abs(centreOf(t.r)[0] - x) > box.width
    && inColumn(t)), (t) => Math.abs(centreOf(t.r)[0] - x));
  return column && row ? `${kind} (${column.words}, ${row.words})` : "";
};
// What an icon-only control says: an SVG <title>, a described-by tooltip, a child's label.
const tooltipOf = (el) => {
  const svgTitle = el.querySelector && el.querySelector("svg title, title");
  if (svgTitle && clean(svgTitle.textContent)) return svgTitle.textContent;
  const by = el.getAttribute("aria-describedby");
  if (by && clean(byIds(el, by))) return byIds(el, by);
  const labelled = el.querySelector && el.querySelector("[aria-label], [title], [data-tooltip], [data-title]");
  if (labelled) {
    return labelled.getAttribute("aria-label") || labelled.getAttribute("title")
      || labelled.getAttribute("data-tooltip") || labelled.getAttribute("data-title");
  }
  return el.getAttribute("data-tooltip") || el.getAttribute("data-title") || "";
};
const ICON_SIZE = 64; // px: a control this small and without words is drawn, an icon
// The words of an icon's class and id, and of the icon inside it (trash, star, reply, send…).
const iconName = (el) => {
  const words = [];
  const look = (node) => {
    if (!node || !node.getAttribute) return;
    const use = node.tagName && node.tagName.toLowerCase() === "use"
      ? (node.getAttribute("href") || node.getAttribute("xlink:href") || "") : "";
    const raw = `${node.getAttribute("class") || ""} ${node.id || ""} ${use}`;
    for (const w of raw.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z]+/)) {
      if (w.length >= 3 && !NOT_ICON_WORDS.has(w) && !words.includes(w)) words.push(w);
    }
  };
  look(el);
  if (el.querySelectorAll) for (const child of Array.from(el.querySelectorAll("*")).slice(0, 6)) look(child);
  return words.length ? `${words.slice(0, 3).join(" ")} (icon)` : "";
};
// The short text right around an unnamed control: a pie slice's label, a tree row's words.
const rowText = (el) => {
  let node = el;
  for (let up = 0; up < 2 && node.parentElement; up += 1) {
    node = node.parentElement;
    const text = clean(shownText(node), 200);
    if (text) return text.length <= LABEL_LENGTH ? text : "";
  }
  return "";
};
const nameOf = (el, role, depth = 0) => {
  const native = el.matches("input, select, textarea");
  const field = native || role === "textbox" || role === "combobox" || role === "searchbox";
  const page = el === document.body || el === document.documentElement;
  // A dialog labelled by its own heading is named by it; a field by what it shows only at last.
  const by = labelledBy(el, false) || (field ? "" : labelledBy(el, true));
  if (by) return by;
  const aria = el.getAttribute("aria-label");
  if (aria && clean(aria)) return clean(aria);
  const label = labelsText(el);
  if (clean(label)) return clean(label);
  const standsIn = field && !native && !page ? hiddenControlLabel(el) : "";
  if (standsIn) return standsIn;
  if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return clean(el.value);
  const alt = el.getAttribute("alt") || (el.querySelector && el.querySelector("img[alt]")?.alt);
  if (NAMED_BY_CONTENT.has(role) || role === "dialog" || role === "alertdialog") {
    const heading = (role === "dialog" || role === "alertdialog") && el.querySelector("h1,h2,h3,h4");
    const text = clean(shownText(heading || el));
    if (text) return text;
  }
  if (alt && !page) return clean(alt);
  const title = el.getAttribute("title") || (page ? "" : tooltipOf(el));
  if (title) return clean(title);
  if (field) {
    const beside = page ? frameHostName() : besideText(el) || boxLabel(el);
    if (beside) return beside;
    // A placeholder is often an example ("e.g. Jin"), so it names a field only when nothing else does.
    const placeholder = el.getAttribute("placeholder") || el.getAttribute("aria-placeholder")
      || el.getAttribute("data-placeholder");
    if (placeholder && clean(placeholder)) return clean(placeholder);
    return (page ? "" : precedingCaption(el)) || labelledBy(el, true) || clean(el.getAttribute("name") || "", 40);
  }
  // A popup list is named by the field that opens it ("Dish"), not by its own id.
  const root = el.getRootNode();
  const opener = el.id && (root.querySelector ? root : document).querySelector(
    `[aria-controls~="${CSS.escape(el.id)}"], [aria-owns~="${CSS.escape(el.id)}"]`);
  if (opener && depth < 2 && opener !== el && !opener.contains(el)) {
    return nameOf(opener, opener.getAttribute("role"), depth + 1);
  }
  const row = rowText(el);
  // A shape in a drawing is named by the label drawn beside it; an icon by what it shows, and
  // by the row it sits in, so that a list's many trash icons differ. Only something icon-sized
  // is an icon: a big box's class words say how it is styled, not what it does.
  if (el instanceof SVGElement) return drawnName(el) || row || iconName(el);
  const box = el.getBoundingClientRect();
  const icon = box.width <= ICON_SIZE && box.height <= ICON_SIZE ? iconName(el) : "";
  if (icon) return row ? `${icon} · ${row}` : icon;
  return row || clean(el.getAttribute("name") || "", 40);
};

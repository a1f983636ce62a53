// Runs in every frame before the page's own scripts (and again from observe.js, for pages that
// were already open when goalbot attached). It counts what a person would call "something
// happened" so an action can be checked for an effect, and it remembers which elements got
// click listeners, since no DOM API can tell afterwards; and when the page last changed, so an
// observation can wait until the page has finished drawing.
(() => {
  if (window.__goalbotWatch) return;
  const watch = { changes: 0, lastChange: 0, clickables: new WeakSet() };
  Object.defineProperty(window, "__goalbotWatch", { value: watch, enumerable: false });

  const CLICKY = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"]);
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (CLICKY.has(type) && this instanceof Element) watch.clickables.add(this);
    return original.call(this, type, listener, options);
  };

  const bump = () => { watch.changes += 1; watch.lastChange = performance.now(); };
  const editable = (t) => t instanceof Element
    && (t.matches("input, textarea, select") || t.isContentEditable);
  for (const type of ["input", "change", "scroll", "submit", "hashchange", "popstate"]) {
    window.addEventListener(type, bump, true);
  }
  // Focus moving to a button is a side effect of every click; focus moving to a field is the
  // effect of clicking into it.
  window.addEventListener("focusin", (e) => { if (editable(e.target)) bump(); }, true);
  const observer = new MutationObserver(bump);
  const WHAT = { subtree: true, childList: true, attributes: true, characterData: true };
  observer.observe(document, WHAT);
  // A document observer does not see inside shadow trees; each one is observed as it is made.
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    observer.observe(root, WHAT);
    return root;
  };
})();

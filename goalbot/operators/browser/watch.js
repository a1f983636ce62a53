// Runs in every frame before the page's own scripts (and again from observe.js, for pages that
// were already open when goalbot attached). It counts what a person would call "something
// happened" so an action can be checked for an effect, and it remembers which elements got
// click listeners, since no DOM API can tell afterwards; and when the page last changed, so an
// observation can wait until the page has finished drawing. It also counts the work the page has
// promised itself — a short timer, an animation frame, a request in flight — so a look need not
// wait out a fixed quiet time on a page that has nothing more coming.
(() => {
  if (window.__goalbotWatch) return;
  // requests: all in flight, for settling; writes: those that may change something (not a GET), which
  // a hold waits to see arrive before it lifts, and a long poll is not.
  const watch = { changes: 0, lastChange: 0, clickables: new WeakSet(), requests: 0, writes: 0 };
  Object.defineProperty(window, "__goalbotWatch", { value: watch, enumerable: false });

  // goalbot's own waiting must not count as the page's.
  watch.sleep = window.setTimeout.bind(window);
  const SOON_MS = 500;  // a timer further off is a later job (a report in a minute), not drawing
  const timers = new Map();  // id → when it is due
  const frames = new Map();
  const pending = (kept, schedule, cancel) => {
    const original = window[schedule];
    const clear = window[cancel];
    window[schedule] = function (callback, delay, ...rest) {
      if (typeof callback !== "function") return original.call(window, callback, delay, ...rest);
      let id;
      id = original.call(window, function (...args) { kept.delete(id); return callback.apply(this, args); }, delay, ...rest);
      kept.set(id, performance.now() + (Number(delay) || 0));
      return id;
    };
    window[cancel] = function (id) { kept.delete(id); return clear.call(window, id); };
  };
  pending(timers, "setTimeout", "clearTimeout");
  pending(frames, "requestAnimationFrame", "cancelAnimationFrame");
  const READS = new Set(["GET", "HEAD", "OPTIONS"]);
  // Reads in flight, by when they began: what a page fetches to draw, which a look waits for.
  const reading = new Map();
  let reads = 0;
  const began = () => { const id = ++reads; reading.set(id, performance.now()); return id; };
  const track = (method) => {
    const writes = !READS.has(String(method || "GET").toUpperCase());
    const read = writes ? 0 : began();
    watch.requests += 1;
    if (writes) watch.writes += 1;
    // answered: when the latest response came, whose handlers (its body read, then drawn) a look waits for.
    return () => {
      watch.requests -= 1; if (writes) watch.writes -= 1; reading.delete(read); watch.answered = performance.now();
    };
  };
  // Whether a read begun within `age` ms is in flight: an older one is a long poll, not drawing. A
  // write is not waited for (a hold may keep it back on purpose), nor a query sent as a POST.
  watch.fetching = (age) => {
    const since = performance.now() - age;
    for (const start of reading.values()) if (start >= since) return true;
    return false;
  };
  const fetch = window.fetch;
  if (fetch) {
    window.fetch = function (...args) {
      const answer = fetch.apply(this, args);
      const done = track((args[1] && args[1].method) || (args[0] && args[0].method));
      answer.then(done, done);
      return answer;
    };
  }
  // A response's body is read after it came, and what it says drawn in the handlers of that read:
  // the read counts as work in flight until those handlers (microtasks) have run, however long a
  // loaded machine takes to parse it.
  if (window.Response) {
    for (const name of ["json", "text", "arrayBuffer", "blob", "formData"]) {
      const read = Response.prototype[name];
      if (typeof read !== "function") continue;
      Response.prototype[name] = function (...args) {
        const body = read.apply(this, args);
        const id = began();
        watch.requests += 1;
        const done = () => watch.sleep(() => {
          watch.requests -= 1; reading.delete(id); watch.answered = performance.now();
        }, 0);
        body.then(done, done);
        return body;
      };
    }
  }
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, ...rest) {
    this.__goalbotMethod = method;
    return open.call(this, method, ...rest);
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    this.addEventListener("loadend", track(this.__goalbotMethod), { once: true });
    return send.apply(this, args);
  };
  // Work the page has promised itself within `within` ms: a timer due by then, a frame, a request.
  watch.busy = (within = SOON_MS) => {
    if (frames.size || watch.requests > 0) return true;
    const by = performance.now() + within;
    for (const due of timers.values()) if (due <= by) return true;
    return false;
  };
  // The timers due within `within` ms, by id: what the page has set itself to answer the input
  // just given (a debounce before suggestions). `owes`: any of them, or a request, still to come.
  watch.owed = (within = SOON_MS) => {
    const by = performance.now() + within;
    return [...timers].filter(([, due]) => due <= by).map(([id]) => id);
  };
  watch.owes = (ids) => watch.requests > 0 || ids.some((id) => timers.has(id));

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
  // The count as a button goes down (before the page's own listeners: this one was added
  // first): a click's effect is counted from there, so what the pointer's arrival did, a hover
  // style or a menu opening, is not taken for the click's answer. -1: none since the element was
  // found (POINT_JS).
  watch.down = -1;
  window.addEventListener("pointerdown", () => { watch.down = watch.changes; }, true);
  // Focus moving to a button is a side effect of every click; focus moving to a field is the
  // effect of clicking into it.
  window.addEventListener("focusin", (e) => { if (editable(e.target)) bump(); }, true);
  // A document edited whole (a framed editor) takes the keys on its body, which was already its
  // active element: no focusin comes, only the window's focus.
  window.addEventListener("focus", (e) => {
    if (e.target === window && (document.designMode === "on" || (document.body && document.body.isContentEditable))) bump();
  }, true);
  const observer = new MutationObserver(bump);
  const WHAT = { subtree: true, childList: true, attributes: true, characterData: true };
  observer.observe(document, WHAT);
  // A navigation to another document that this one starts (a link, a form sent, a script): from
  // then on the page is leaving, and a look would see the page it leaves. A form's navigation
  // begins a task after its submit, so the click that sent it can end before any request is made;
  // a look waits for the document to go instead. One the page takes over (a router's intercept)
  // ends in navigatesuccess or navigateerror; one cancelled is said by defaultPrevented.
  if (window.navigation) {
    window.navigation.addEventListener("navigate", (e) => {
      // downloadRequest: the file name a download link asks for ("" when it names none), else null.
      if (e.destination.sameDocument || typeof e.downloadRequest === "string") return;
      watch.leaving = performance.now();
      watch.sleep(() => { if (e.defaultPrevented) watch.leaving = 0; }, 0);
    });
    for (const type of ["navigatesuccess", "navigateerror"]) {
      window.navigation.addEventListener(type, () => { watch.leaving = 0; });
    }
  }
  // A document observer does not see inside shadow trees; each one is observed as it is made.
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    observer.observe(root, WHAT);
    return root;
  };
})();

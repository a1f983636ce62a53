// Runs in every frame before the page's own scripts. A form whose words (its submit buttons, the
// button that submitted it, its address) say it pays, deletes or sends is held back, however its
// submission was triggered: a click, Enter, a script calling requestSubmit() or submit(). goalbot
// reads what is held after each action, asks the person, and lets it through only after a GO.
(() => {
  if (window.__goalbotGate) return;
  const patterns = __PATTERNS__.map(([source, flags]) => new RegExp(source, flags));
  // Only goalbot knows the token: a page that calls release() itself lets nothing through.
  const TOKEN = __TOKEN__;
  let open = false;
  const held = [];
  const gate = Object.freeze({
    held: () => held.map((h) => h.text),
    release: (token) => (token === TOKEN ? release() : []),
  });
  Object.defineProperty(window, "__goalbotGate", { value: gate, enumerable: false });

  const SUBMIT = "button:not([type]), button[type=submit], input[type=submit], input[type=image]";
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 200);
  const said = (e) => squash(e.getAttribute("aria-label") || e.innerText || e.value || e.getAttribute("title"));
  const words = (form, submitter) => squash([
    submitter ? said(submitter) : "",
    ...[...form.querySelectorAll(SUBMIT)].map(said),
    form.getAttribute("action") || "",
  ].join(" "));
  const risky = (text) => patterns.some((p) => p.test(text));

  // Capturing on window runs before any listener the page can add to the form itself.
  window.addEventListener("submit", (event) => {
    const form = event.target;
    if (open || !(form instanceof HTMLFormElement)) return;
    const text = words(form, event.submitter);
    if (!risky(text)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    held.push({ form, submitter: event.submitter || null, text, native: false });
  }, true);

  // form.submit() fires no submit event: it is held here instead.
  const nativeSubmit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    const text = words(this, null);
    if (!open && risky(text)) {
      held.push({ form: this, submitter: null, text, native: true });
      return undefined;
    }
    return nativeSubmit.call(this);
  };

  function release() {
    const taken = held.splice(0);
    open = true;
    try {
      for (const h of taken) {
        if (!h.form.isConnected) continue;
        if (h.native) nativeSubmit.call(h.form);
        else h.form.requestSubmit(h.submitter && h.submitter.form === h.form ? h.submitter : undefined);
      }
    } finally {
      open = false;
    }
    return taken.map((h) => h.text);
  }
})();

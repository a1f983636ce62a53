// Runs in every frame before the page's own scripts. While goalbot holds the page's writes, what
// the page hands to a worker is held here: Playwright's routing does not see a SharedWorker's
// requests nor any worker's WebSocket, so a message that would make a worker send waits in the
// page until the person says GO. So do a beacon and a keepalive request, which outlive their page
// where the routing no longer sees them: one made as the page is left is never sent (nor, as the
// page is gone, reported). A worker the page starts while held is refused (its address or name
// could carry what it would send). A frame or a window the page opens while held starts held.
(() => {
  if (window.__goalbotHold) return;
  // Only goalbot knows the token: a page that calls arm() or release() itself changes nothing.
  const TOKEN = __TOKEN__;
  let armed = false;
  for (const parent of [window.parent !== window ? window.parent : null, window.opener]) {
    try { armed = armed || Boolean(parent && parent.__goalbotHold && parent.__goalbotHold.armed()); } catch { }
  }
  const held = [];
  const toWorkers = new WeakSet();  // ports that lead to a worker: a SharedWorker's, or one handed over

  const said = (data) => {
    let text;
    try { text = typeof data === "string" ? data : JSON.stringify(data); } catch { text = String(data); }
    text = String(text === undefined ? "" : text).replace(/\s+/g, " ").trim();
    return text ? `: ${text.slice(0, 120)}${text.length > 120 ? "…" : ""}` : "";
  };
  const address = (url) => { try { const u = new URL(String(url), location.href); return u.host + u.pathname; } catch { return String(url).slice(0, 80); } };
  const keep = (what, deliver) => { held.push({ what, deliver }); };
  const handedOver = (args) => {
    const list = Array.isArray(args[1]) ? args[1] : (args[1] && args[1].transfer) || [];
    for (const item of list) if (item instanceof MessagePort) toWorkers.add(item);
  };

  const holdPosts = (proto, what, applies) => {
    if (!proto || !proto.postMessage) return;
    const post = proto.postMessage;
    proto.postMessage = function (...args) {
      if (!applies(this)) return post.apply(this, args);
      handedOver(args);
      if (!armed) return post.apply(this, args);
      keep(`${what}${said(args[0])}`, () => post.apply(this, args));
      return undefined;
    };
  };
  const always = () => true;
  holdPosts(window.Worker && Worker.prototype, "pass a message to a worker", always);
  holdPosts(window.ServiceWorker && ServiceWorker.prototype, "pass a message to a service worker", always);
  holdPosts(window.BroadcastChannel && BroadcastChannel.prototype, "broadcast a message", always);
  // Other message ports are the page's own business (React schedules its work through one).
  holdPosts(window.MessagePort && MessagePort.prototype, "pass a message to a shared worker", (port) => toWorkers.has(port));

  const refuseWhileHeld = (name, kind) => {
    const Original = window[name];
    if (!Original) return;
    const Held = function (url, ...rest) {
      if (!new.target) return Original.call(this, url, ...rest);
      if (armed) {
        keep(`start a ${kind} at ${address(url)} (refused while the page's writes were held)`, () => { });
        throw new DOMException(`goalbot holds this page's writes: no ${kind} may start now`, "SecurityError");
      }
      const made = Reflect.construct(Original, [url, ...rest], new.target);
      if (made.port) toWorkers.add(made.port);
      return made;
    };
    Held.prototype = Original.prototype;
    // Else `new Worker.prototype.constructor(…)` would reach the one that is never refused.
    Object.defineProperty(Original.prototype, "constructor", { value: Held, writable: true, configurable: true });
    Object.defineProperty(window, name, { value: Held, writable: true, configurable: true });
  };
  refuseWhileHeld("Worker", "worker");
  refuseWhileHeld("SharedWorker", "shared worker");

  const beacon = Navigator.prototype.sendBeacon;
  if (beacon) {
    Navigator.prototype.sendBeacon = function (url, data) {
      if (!armed) return beacon.call(this, url, data);
      keep(`send a beacon to ${address(url)}${said(data)}`, () => beacon.call(this, url, data));
      return true;
    };
  }
  const fetch = window.fetch;
  const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
  window.fetch = function (input, init) {
    const method = String((init && init.method) || (input instanceof Request ? input.method : "GET")).toUpperCase();
    const lasting = Boolean((init && init.keepalive) || (input instanceof Request && input.keepalive));
    if (!armed || !lasting || SAFE.has(method)) return fetch.call(this, input, init);
    const url = input instanceof Request ? input.url : input;
    return new Promise((resolve, reject) => keep(`send ${method} ${address(url)}${said(init && init.body)}`,
      () => fetch.call(window, input, init).then(resolve, reject)));
  };

  const hold = Object.freeze({
    armed: () => armed,
    held: () => held.map((h) => h.what),
    arm: (token, on) => { if (token === TOKEN) armed = Boolean(on); return armed; },
    release: (token) => {
      if (token !== TOKEN) return [];
      const taken = held.splice(0);
      for (const h of taken) { try { h.deliver(); } catch { } }
      return taken.map((h) => h.what);
    },
    drop: (token) => (token === TOKEN ? held.splice(0).map((h) => h.what) : []),
  });
  Object.defineProperty(window, "__goalbotHold", { value: hold, enumerable: false });
})();

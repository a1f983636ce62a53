"""The bundled demo web app: a sign-in page and a settings page with a dark-mode switch, and a
shop (`shop.py`) with a product table and a cart.

It keeps its state on the server, so a test (or a curious person) can check through
`/api/state` that the agent really changed the setting rather than just clicking around.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from urllib.parse import parse_qs

from goalbot.demo.shop import BY_SLUG, cart_page, shop_page

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo-pass"

_PAGE = files("goalbot.demo").joinpath("page.html").read_text(encoding="utf-8")


@dataclass
class SiteState:
    accounts: dict[str, str] = field(default_factory=lambda: {DEMO_EMAIL: DEMO_PASSWORD})
    sessions: dict[str, str] = field(default_factory=dict)
    dark_mode: dict[str, bool] = field(default_factory=dict)
    cart: list[str] = field(default_factory=list)  # the shop's, by product slug, in the order added
    # The site after a redesign: the dark-mode switch sits behind an "Appearance" button. A recipe
    # recorded before it needs a patch only a model can make (`goalbot eval`'s demo-rerun).
    redesigned: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def snapshot(self) -> dict[str, object]:
        with self.lock:
            record: dict[str, object] = {"signed_in": sorted(set(self.sessions.values())),
                                         "dark_mode": dict(self.dark_mode)}
            if self.cart:  # the shop's part, once something was bought
                record["cart"] = list(self.cart)
            return record


class _Handler(BaseHTTPRequestHandler):
    state: SiteState

    def log_message(self, format: str, *args: object) -> None:
        pass  # the agent's own events are the log worth reading

    def _user(self) -> str | None:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        token = cookie["sid"].value if "sid" in cookie else None
        with self.state.lock:
            return self.state.sessions.get(token or "")

    def _send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, where: str, headers: dict[str, str] | None = None) -> None:
        self._send(HTTPStatus.SEE_OTHER, "", headers={"Location": where, **(headers or {})})

    def _page(self, title: str, body: str, dark: bool = False) -> None:
        page = _PAGE.replace("{title}", html.escape(title)).replace("{body}", body)
        self._send(HTTPStatus.OK, page.replace("{theme}", "dark" if dark else "light"))

    def _form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        fields = parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        return {k: v[-1] for k, v in fields.items()}

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/api/state":
            self._send(HTTPStatus.OK, json.dumps(self.state.snapshot()), "application/json")
        elif path == "/login":
            self._login_page()
        elif path == "/shop":
            self._page(*shop_page())
        elif path == "/shop/cart":
            with self.state.lock:
                items = list(self.state.cart)
            self._page(*cart_page(items))
        elif path in ("/", "/settings"):
            user = self._user()
            if user is None:
                self._redirect("/login")
            else:
                self._settings_page(user)
        else:
            self._send(HTTPStatus.NOT_FOUND, "<h1>Not found</h1>")

    def do_POST(self) -> None:
        path = self.path.split("?")[0]
        form = self._form()
        if path == "/login":
            email, password = form.get("email", "").strip(), form.get("password", "")
            with self.state.lock:
                known = self.state.accounts.get(email) == password
            if not known:
                self._login_page(error="Wrong email or password.")
                return
            token = secrets.token_hex(16)
            with self.state.lock:
                self.state.sessions[token] = email
            self._redirect("/settings", {"Set-Cookie": f"sid={token}; Path=/; HttpOnly"})
        elif path == "/shop/cart":
            item = form.get("item", "")
            if item in BY_SLUG and BY_SLUG[item].in_stock:
                with self.state.lock:
                    self.state.cart.append(item)
            self._redirect("/shop/cart")
        elif path == "/settings":
            user = self._user()
            if user is None:
                self._redirect("/login")
                return
            with self.state.lock:
                self.state.dark_mode[user] = form.get("dark_mode") == "on"
            self._settings_page(user, saved=True)
        else:
            self._send(HTTPStatus.NOT_FOUND, "<h1>Not found</h1>")

    def _login_page(self, error: str = "") -> None:
        alert = f'<p role="alert" class="error">{html.escape(error)}</p>' if error else ""
        self._page("Sign in", f"""
<h1>Sign in</h1>
<p class="hint">Demo account: {DEMO_EMAIL}, password {DEMO_PASSWORD}</p>
{alert}
<form method="post" action="/login">
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username">
  <label for="password">Password</label><input id="password" name="password" type="password">
  <button type="submit">Sign in</button>
</form>""")

    def _settings_page(self, user: str, saved: bool = False) -> None:
        with self.state.lock:
            dark, redesigned = self.state.dark_mode.get(user, False), self.state.redesigned
        notice = '<p role="status" class="ok">Settings saved.</p>' if saved else ""
        checked = " checked" if dark else ""
        switch = f"""
  <input id="dark" name="dark_mode" type="checkbox" role="switch"{checked}>
  <label for="dark">Dark mode</label>
  <button type="submit">Save</button>"""
        appearance = f"""
  <button type="button" aria-expanded="false" aria-controls="appearance"
    onclick="this.setAttribute('aria-expanded', 'true'); document.getElementById('appearance').hidden = false"
  >Appearance</button>
  <div id="appearance" hidden>{switch}
  </div>""" if redesigned else f"\n  <h2>Appearance</h2>{switch}"
        self._page("Settings", f"""
<h1>Settings</h1>
<p>Signed in as {html.escape(user)}</p>
{notice}
<form method="post" action="/settings">{appearance}
</form>""", dark=dark)


class DemoSite:
    """Serves the demo app on 127.0.0.1 in a background thread."""

    def __init__(self, port: int = 0) -> None:
        self.state = SiteState()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = str(self._server.server_address[0]), self._server.server_address[1]
        return f"http://{host}:{port}"

    def start(self) -> DemoSite:
        self._thread.start()
        return self

    def redesign(self) -> None:
        """The same site after a redesign, as a returning recipe meets it: nobody signed in,
        nothing set, and the dark-mode switch behind an "Appearance" button."""
        with self.state.lock:
            self.state.sessions.clear()
            self.state.dark_mode.clear()
            self.state.redesigned = True

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> DemoSite:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

"""A customer portal written the way real ones are, nobody's recipes in mind (issue 69):

- `/portal/sign-in`: Email, Password, "Sign in"; the form posts back to its own address and, once
  the password is right, sets a session cookie and answers 303 to `?next=` (or the invoices).
- `/portal/invoices`: signed in only (otherwise 303 to the sign-in page with `?next=`). Every
  invoice has a link named exactly "Download", the same words on every row, as portals write
  them; it is answered with a real PDF (Content-Disposition: attachment), and each one served is
  kept in `served`. The page has two layouts at one address, a table and cards: the portal picks
  one per visit (`layout`: "table", "cards", or "random", drawn from `seed`), as an A/B test does.
- A cookie banner over every page when `ask_consent` says so ("yes", "late": drawn
  `banner_delay_ms` after the page, as consent tools loaded later are), whose "Accept all" posts a
  form back to the same address; the page comes again without it (a consent cookie, good until
  the banner is asked again).
- Sessions expire: with `expire_after` = N a session ends once it was served N downloads, so the
  next download link of the same pass is answered with a 303 to the sign-in page.
- `/portal/settings`: a checkbox "E-mail me my invoices" in its stored state (`email_invoices`),
  and Save, which posts the form and comes back saying "Settings saved". Each save is in `saves`.

State is in memory and thread-safe; `reset()` puts it back as a fresh portal has it.
"""

from __future__ import annotations

import html
import random
import secrets
import threading
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlencode, urlsplit

from hardsite.pdf import text_pdf
from hardsite.things import Answer

EMAIL = "alice@example.com"
PASSWORD = "n0rthw1nd-Pass"
HOME = "/portal/invoices"
SIGN_IN = "/portal/sign-in"
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


@dataclass(frozen=True)
class Invoice:
    id: str
    month: str  # as the row shows it: "March 2026", or "2026년 4월"
    amount: float

    @property
    def shown_amount(self) -> str:
        return f"€{self.amount:,.2f}"


def invoices(first: int, count: int, korean_every: int = 3) -> list[Invoice]:
    """`count` invoices from INV-`first` on, a month apart; every `korean_every`-th row says its
    month in Korean, as a portal whose rows came from two systems does."""
    made = []
    for n in range(count):
        year, month = 2025 + (n // 12), n % 12 + 1
        shown = f"{year}년 {month}월" if korean_every and n % korean_every == korean_every - 1 \
            else f"{MONTHS[month - 1]} {year}"
        made.append(Invoice(f"INV-{first + n}", shown, round(80.0 + 7.5 * n, 2)))
    return made


def records(listed: list[Invoice]) -> list[dict[str, object]]:
    """The invoices as the extraction schema has them: what a model reads off the page."""
    return [{"id": i.id, "month": i.month, "amount": i.amount} for i in listed]


class Portal:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.invoices: list[Invoice] = invoices(1001, 3)
            self.layout = "table"  # "table", "cards", or "random" (drawn from `seed` per visit)
            self.seed = 0
            self._draw = random.Random(self.seed)
            self.drawn: list[str] = []  # the layout each visit to the invoices got
            self.banner = "no"  # "no", "yes", "late": set it with ask_consent
            self.consent_round = 0  # a consent given in an earlier round no longer counts
            self.banner_delay_ms = 900
            self.expire_after: int | None = None  # downloads a session is served before it ends
            self.sessions: dict[str, int] = {}  # session id -> downloads served to it
            self.served: list[str] = []  # invoice ids answered with their PDF, in order
            self.bounced: list[str] = []  # invoice ids whose download was sent to the sign-in page
            self.sign_ins = 0
            self.email_invoices = False
            self.saves: list[bool] = []

    def answers(self, path: str) -> bool:
        return path == "/portal" or path.startswith("/portal/")

    # -- requests ---------------------------------------------------------------------------------

    def get(self, target: str, cookie: str = "") -> Answer:
        path, query = urlsplit(target).path, parse_qs(urlsplit(target).query)
        cookies = _cookies(cookie)
        if path == SIGN_IN:
            return self._sign_in_page(cookies, "")
        session = self._session(cookies)
        if path in ("/portal", "/portal/"):
            return _see_other(HOME)
        if session is None:
            return _see_other(f"{SIGN_IN}?{urlencode({'next': HOME if path == '/portal/download' else target})}")
        if path == HOME:
            return self._invoices_page(cookies)
        if path == "/portal/download":
            return self._download(session, query.get("invoice", [""])[0])
        if path == "/portal/settings":
            return self._settings_page(cookies, saved=query.get("saved") == ["1"])
        return Answer(404, b"not here")

    def post(self, target: str, body: str, cookie: str = "") -> Answer:
        path = urlsplit(target).path
        form = {key: values[0] for key, values in parse_qs(body).items()}
        cookies = _cookies(cookie)
        if form.get("consent") == "all":  # the banner's form, posted back to the page it was on
            with self.lock:
                given = f"round{self.consent_round}"
            return _see_other(target, {"Set-Cookie": f"portal_consent={given}; Path=/portal; SameSite=Lax"})
        if path == SIGN_IN:
            return self._signed_in(target, form, cookies)
        session = self._session(cookies)
        if session is None:
            return _see_other(f"{SIGN_IN}?{urlencode({'next': path})}")
        if path == "/portal/settings":
            wanted = form.get("email_invoices") == "on"
            with self.lock:
                self.email_invoices = wanted
                self.saves.append(wanted)
            return _see_other("/portal/settings?saved=1")
        return Answer(405, b"not here")

    # -- what the portal does ---------------------------------------------------------------------

    def _session(self, cookies: dict[str, str]) -> str | None:
        sid = cookies.get("portal_sid", "")
        with self.lock:
            return sid if sid in self.sessions else None

    def _signed_in(self, target: str, form: dict[str, str], cookies: dict[str, str]) -> Answer:
        if form.get("email", "").strip().lower() != EMAIL or form.get("password") != PASSWORD:
            return self._sign_in_page(cookies, "Wrong e-mail or password.")
        sid = secrets.token_hex(12)
        with self.lock:
            self.sessions[sid] = 0
            self.sign_ins += 1
        wanted = parse_qs(urlsplit(target).query).get("next", [HOME])[0]
        goes = wanted if wanted.startswith("/portal/") else HOME  # never an open redirect
        return _see_other(goes, {"Set-Cookie": f"portal_sid={sid}; Path=/portal; HttpOnly; SameSite=Lax"})

    def _download(self, sid: str, wanted: str) -> Answer:
        with self.lock:
            invoice = next((i for i in self.invoices if i.id == wanted), None)
            if invoice is None:
                return Answer(404, b"no such invoice")
            if self.expire_after is not None and self.sessions[sid] >= self.expire_after:
                del self.sessions[sid]  # the session ended: this download goes to the sign-in page
                self.bounced.append(invoice.id)
                return _see_other(f"{SIGN_IN}?{urlencode({'next': HOME})}",
                                  {"Set-Cookie": "portal_sid=; Max-Age=0; Path=/portal"})
            self.sessions[sid] += 1
            self.served.append(invoice.id)
        pdf = text_pdf(["Northwind Energy", f"Invoice {invoice.id}", f"Amount due: EUR {invoice.amount:,.2f}"])
        return Answer(200, pdf, {"Content-Type": "application/pdf",
                                 "Content-Disposition": f'attachment; filename="{invoice.id}.pdf"'})

    def _layout(self) -> str:
        with self.lock:
            picked = self.layout if self.layout != "random" else self._draw.choice(["table", "cards"])
            self.drawn.append(picked)
            return picked

    def ask_consent(self, how: str) -> None:
        """The banner comes ("yes", "late") or not ("no") from now on, even to a browser that
        accepted before: a consent tool asks again when its policy changed, kept cookies or not."""
        with self.lock:
            self.banner, self.consent_round = how, self.consent_round + 1

    def set_seed(self, seed: int) -> None:
        with self.lock:
            self.seed, self._draw = seed, random.Random(seed)

    # -- pages ------------------------------------------------------------------------------------

    def _invoices_page(self, cookies: dict[str, str]) -> Answer:
        with self.lock:
            listed = list(self.invoices)
        layout = self._layout()
        if layout == "cards":
            body = '<div class="cards">' + "".join(
                f'<article class="card"><h2>{html.escape(i.id)}</h2>'
                f'<p class="amount">{html.escape(i.shown_amount)}</p><p class="month">{html.escape(i.month)}</p>'
                f'<a class="btn btn-primary" href="/portal/download?{urlencode({"invoice": i.id})}">Download</a>'
                "</article>" for i in listed) + "</div>"
        else:
            body = ("<table><thead><tr><th>Invoice</th><th>Month</th><th>Amount</th><th></th></tr></thead><tbody>"
                    + "".join(f"<tr><td>{html.escape(i.id)}</td><td>{html.escape(i.month)}</td>"
                              f"<td>{html.escape(i.shown_amount)}</td><td><a href=\"/portal/download?"
                              f"{urlencode({'invoice': i.id})}\">Download</a></td></tr>" for i in listed)
                    + "</tbody></table>")
        return self._page("Invoices", f"<h1>Your invoices</h1>{body}", cookies, signed_in=True)

    def _settings_page(self, cookies: dict[str, str], saved: bool) -> Answer:
        with self.lock:
            on = self.email_invoices
        said = '<p role="status">Settings saved</p>' if saved else ""
        form = ('<form method="post" action="/portal/settings">'
                f'<label><input type="checkbox" name="email_invoices"{" checked" if on else ""}> '
                "E-mail me my invoices</label><p><button type=\"submit\">Save</button></p></form>")
        return self._page("Settings", f"<h1>Settings</h1>{said}{form}", cookies, signed_in=True)

    def _sign_in_page(self, cookies: dict[str, str], error: str) -> Answer:
        alert = f'<p role="alert">{html.escape(error)}</p>' if error else ""
        form = ('<form method="post">'
                '<p><label for="email">Email</label><br>'
                '<input id="email" name="email" type="email" autocomplete="username"></p>'
                '<p><label for="password">Password</label><br><input id="password" name="password" type="password"'
                ' autocomplete="current-password"></p><p><button type="submit">Sign in</button></p></form>')
        return self._page("Sign in", f"<h1>Sign in to Northwind Energy</h1>{alert}{form}", cookies, signed_in=False)

    def _page(self, title: str, main: str, cookies: dict[str, str], signed_in: bool) -> Answer:
        nav = ('<nav><a href="/portal/invoices">Invoices</a> · <a href="/portal/settings">Settings</a></nav>'
               if signed_in else "")
        text = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} · Northwind Energy'
                f"</title><style>{STYLE}</style></head><body><header><strong>Northwind Energy</strong>{nav}"
                f"</header><main>{main}</main>{self._banner(cookies)}</body></html>")
        return Answer(200, text.encode(), {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"})

    def _banner(self, cookies: dict[str, str]) -> str:
        with self.lock:
            how, delay, given = self.banner, self.banner_delay_ms, f"round{self.consent_round}"
        if how == "no" or cookies.get("portal_consent") == given:
            return ""
        banner = ('<div id="consent" role="dialog" aria-modal="true" aria-label="Cookie consent">'
                  '<div class="sheet"><p>We use cookies to keep you signed in and to measure the portal.</p>'
                  '<form method="post"><input type="hidden" name="consent" value="all">'
                  '<button type="submit">Accept all</button></form></div></div>')
        if how != "late":
            return banner
        # Drawn later, as a consent tool loaded after the page is: not in the page at first.
        return (f"<template id=\"later\">{banner}</template><script>setTimeout(() => document.body.append("
                f"document.getElementById('later').content.cloneNode(true)), {int(delay)});</script>")


STYLE = ("body{font-family:sans-serif;margin:0}header{display:flex;gap:2em;padding:1em;background:#123}"
         "header,header a{color:#fff}main{padding:1em}td,th{padding:.4em 1em;text-align:left}"
         ".cards{display:flex;flex-wrap:wrap;gap:1em}"
         ".card{border:1px solid #ccc;border-radius:8px;padding:1em;width:12em}"
         ".btn{display:inline-block;padding:.4em 1em;background:#26a;color:#fff;border-radius:4px;text-decoration:none}"
         "#consent{position:fixed;inset:0;background:rgba(0,0,0,.5)}"
         "#consent .sheet{background:#fff;margin:20vh auto;width:22em;padding:1em}")


def _cookies(header: str) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header or "")
    except CookieError:  # a malformed Cookie header is no cookie, as a server reads it
        return {}
    return {key: morsel.value for key, morsel in jar.items()}


def _see_other(location: str, headers: dict[str, str] | None = None) -> Answer:
    return Answer(303, b"", {"Location": location, **(headers or {})})

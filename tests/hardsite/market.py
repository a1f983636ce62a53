"""A market-data site written the way real ones are, nobody's extraction in mind (issue 70, "Data
on real pages"). Every number comes from `Market.day` (an int seed: each day its own deterministic
numbers) and `Market.truth(kind)` returns exactly what the site serves for that day, as Python
values (floats, ints, strs), so a test compares exactly. Every page and API also takes `?day=N`
to serve another day; `truth(kind, day=N)` says what that day is.

Every answer sets a harmless cookie `layout=wide`, so every fetch a page makes carries a cookie.
Every request is logged in `requests` as (method, path with query, Cookie header).

Pages:

- `/` — links to every page below.
- `/quotes` — 12 tickers (AAPL, 삼성전자, 카카오, …) drawn as a bar chart on a <canvas> by the
  page's JavaScript from `/api/quotes?day=N` (fetched with `fetch()`). The numbers are drawn, never
  in the DOM text. The API answers `{"quotes": [{"ticker", "price", "change", "volume"}]}`.
  `truth("quotes")`: that list, in the order drawn (price and change floats with 2 decimals,
  change in %, some negative; volume an int).
- `/sign-in?next=/quotes` — Email, Password and "Sign in"; the form posts back to its own
  address, sets the session cookie `session` once EMAIL/PASSWORD are right and answers 303 to
  `next`; wrong ones come back with "Wrong email or password."
- `/grid` — a virtualised grid (role=grid) of 5,000 rows (Ticker, Price, Volume): about 40 rows
  in the DOM at a time, swapped as the grid's own box (not the page) scrolls. Rows not loaded yet
  say "Loading…" and fill in once their page of 100 comes from `/api/rows?day=&offset=&limit=`,
  which answers `grid_delay_ms` late, as a paged API does. "5,000 rows" is written twice: in
  the heading and in the paragraph under it. `truth("grid")`: the 5,000 rows as
  [{"ticker", "price", "volume"}] (every 250th row from the 8th on is a Korean company);
  `truth("grid_total")`: 5000.
- `/table.png` — a picture (PNG, Pillow, DejaVu Sans) of a table of 8 rows: Ticker, Price,
  Change %; `/table-page` shows it in an <img> with nothing else about it in the text. Korean
  names are drawn only where a CJK font is installed (`CJK_FONT`); otherwise the 8 tickers are
  Latin ones. `truth("table")`: [{"ticker", "price", "change"}].
- `/billing` — three links to today's invoice: "View invoice" (`/invoice.pdf`, Content-Disposition
  inline: Chromium shows it in its viewer), "Open in a new tab" (the same, target=_blank) and
  "Download PDF" (`/invoice.pdf?download=1`, Content-Disposition attachment). The PDF has a text
  layer: a table of line items (Description, Qty, Unit price, Amount) and "Total". Each one served
  is counted in `invoices_served`. `truth("invoice")`: {"number", "date", "items":
  [{"description", "qty", "unit_price", "amount"}], "total"}.
- `/summary` — an ordinary page: the headline "Total volume 1,234,567" and a table whose
  "Total volume" cell holds the same value, "Advancing", "Declining", and "Turnover", which says
  "Loading…" until `/api/summary` answers (`summary_delay_ms`, 500 ms, late). `truth("summary")`:
  {"total_volume", "advancing", "declining", "turnover"} (turnover: Σ price × volume, 2 decimals).

Variants (`variant`, a dict the tests set; `vary(**flags)` checks the names):

- `signed_in` (False): `/quotes` needs the session cookie (without it, 303 to `/sign-in?next=`),
  and `/api/quotes` answers 401 without it.
- `redesign` (False): `/quotes` in other markup, other class names and another chart: horizontal
  bars, each labelled with its ticker on the left and its price on the right. Same API.
- `reshaped` (False): `/api/quotes` wraps the same numbers differently:
  `{"data": {"items": [{"symbol", "last", "chg", "vol"}]}}`; the page reads either shape.
- `no_total` (False): `/grid` says its total nowhere (heading, paragraph, aria-rowcount, the API):
  the grid grows by a page as it is scrolled to its end, as infinite lists do.
- `rules` (True): `/table.png` with grid lines between every cell; False: no lines at all.

State is in memory and thread-safe; `reset()` puts it back as a fresh site has it. Serve it with
`hardsite.market_fixture.serve_market` (or its `market_site` fixture).
"""

from __future__ import annotations

import html
import json
import random
import secrets
import subprocess
import threading
import time
from functools import cache
from http.cookies import CookieError, SimpleCookie
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from hardsite.pdf import written
from hardsite.things import Answer

EMAIL = "trader@example.com"
PASSWORD = "Bull-and-b3ar"
GRID_ROWS = 5000
GRID_PAGE = 100
DEFAULT_VARIANT: dict[str, bool] = {"signed_in": False, "redesign": False, "reshaped": False,
                                    "no_total": False, "rules": True}
QUOTE_TICKERS = ["AAPL", "삼성전자", "MSFT", "카카오", "NVDA", "SK하이닉스", "AMZN", "현대차", "GOOGL",
                 "NAVER", "TSLA", "셀트리온"]
LATIN_TICKERS = ["AAPL", "SSNLF", "MSFT", "KAKAO", "NVDA", "HXSCL", "AMZN", "HYMTF"]
KOREAN_COMPANIES = ["삼성전자", "SK하이닉스", "LG에너지솔루션", "삼성바이오로직스", "현대차", "기아", "셀트리온",
                    "POSCO홀딩스", "NAVER", "카카오", "LG화학", "삼성SDI", "KB금융", "신한지주", "현대모비스",
                    "삼성물산", "카카오뱅크", "한국전력", "하나금융지주", "엔씨소프트"]
INVOICE_ITEMS = ["Real-time quotes, Level 1", "Depth of book, Level 2", "Historical bars, 10 years",
                 "Corporate actions feed", "Terminal seat", "News wire"]
SITE_NAME = "Northwind Markets"
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEJAVU_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


@cache
def cjk_font() -> str | None:
    """An installed font that has Korean, or None: the table picture draws Korean only with one."""
    try:
        listed = subprocess.run(["fc-list", ":lang=ko", "file"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    files = [line.split(":")[0].strip() for line in listed.stdout.splitlines() if line.strip()]
    return sorted(files)[0] if files else None


def _cents(value: float) -> int:
    return int(round(value * 100))


def _price(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def _change(rng: random.Random) -> float:
    change = round(rng.uniform(-4.5, 4.5), 2)
    return change if change != 0 else 0.01  # a "0.00" would be neither up nor down, and "-0.0" worse


@cache
def quotes(day: int) -> tuple[dict[str, Any], ...]:
    rng = random.Random(f"quotes:{day}")
    made: list[dict[str, Any]] = [{"ticker": ticker, "price": _price(rng, 40, 950), "change": _change(rng),
             "volume": rng.randrange(12_000, 4_800_000)} for ticker in QUOTE_TICKERS]
    if all(q["change"] > 0 for q in made):
        made[day % len(made)]["change"] *= -1  # every day has a fall somewhere, as markets do
    if all(q["change"] < 0 for q in made):
        made[day % len(made)]["change"] *= -1
    return tuple(made)


def _grid_ticker(index: int) -> str:
    if index % 250 == 7:
        return KOREAN_COMPANIES[index // 250]
    letters = ""
    for _ in range(3):
        index, digit = divmod(index, 26)
        letters = chr(ord("A") + digit) + letters
    return "X" + letters  # no real exchange lists these, so none collides with a quote


@cache
def grid_rows(day: int) -> tuple[dict[str, Any], ...]:
    rng = random.Random(f"grid:{day}")
    return tuple({"ticker": _grid_ticker(n), "price": _price(rng, 1, 2400),
                  "volume": rng.randrange(1_000, 9_900_000)} for n in range(GRID_ROWS))


def table_tickers() -> list[str]:
    return QUOTE_TICKERS[:8] if cjk_font() else LATIN_TICKERS


@cache
def table_rows(day: int) -> tuple[dict[str, Any], ...]:
    rng = random.Random(f"table:{day}")
    return tuple({"ticker": ticker, "price": _price(rng, 10, 990), "change": _change(rng)}
                 for ticker in table_tickers())


@cache
def invoice(day: int) -> dict[str, Any]:
    rng = random.Random(f"invoice:{day}")
    chosen = rng.sample(INVOICE_ITEMS, 4)
    items: list[dict[str, Any]] = []
    for description in chosen:
        qty, unit = rng.randrange(1, 13), _price(rng, 9, 480)
        items.append({"description": description, "qty": qty, "unit_price": unit,
                      "amount": _cents(unit) * qty / 100})
    return {"number": f"NWM-{2026_0000 + day * 37 % 10_000}", "date": f"2026-{day % 12 + 1:02d}-{day % 28 + 1:02d}",
            "items": items, "total": sum(_cents(i["amount"]) for i in items) / 100}


def summary(day: int) -> dict[str, Any]:
    listed = quotes(day)
    return {"total_volume": sum(q["volume"] for q in listed),
            "advancing": sum(1 for q in listed if q["change"] > 0),
            "declining": sum(1 for q in listed if q["change"] < 0),
            "turnover": sum(_cents(q["price"]) * q["volume"] for q in listed) / 100}


TRUTHS = {"quotes": lambda day: [dict(q) for q in quotes(day)],
          "grid": lambda day: [dict(r) for r in grid_rows(day)],
          "grid_total": lambda day: GRID_ROWS,
          "table": lambda day: [dict(r) for r in table_rows(day)],
          "invoice": lambda day: json.loads(json.dumps(invoice(day))),
          "summary": summary}


class Market:
    def __init__(self, day: int = 1) -> None:
        self.lock = threading.Lock()
        self.reset(day)

    def reset(self, day: int = 1) -> None:
        with self.lock:
            self.day = day
            self.variant: dict[str, bool] = dict(DEFAULT_VARIANT)
            self.sessions: set[str] = set()
            self.requests: list[tuple[str, str, str]] = []
            self.invoices_served: list[str] = []  # "inline" or "attachment", one per PDF served
            self.grid_delay_ms = 300
            self.summary_delay_ms = 500

    def vary(self, **flags: bool) -> None:
        unknown = set(flags) - set(DEFAULT_VARIANT)
        if unknown:
            raise ValueError(f"no such variant {sorted(unknown)}; the variants are {sorted(DEFAULT_VARIANT)}")
        with self.lock:
            self.variant.update(flags)

    def truth(self, kind: str, day: int | None = None) -> Any:
        if kind not in TRUTHS:
            raise ValueError(f"no truth {kind!r}; the kinds are {sorted(TRUTHS)}")
        return TRUTHS[kind](self.day if day is None else day)

    def _flag(self, name: str) -> bool:
        with self.lock:
            return bool({**DEFAULT_VARIANT, **self.variant}[name])

    # -- requests ------------------------------------------------------------------------------

    def get(self, target: str, cookie: str = "") -> Answer:
        self._log("GET", target, cookie)
        path, query = _split(target)
        day = _day(query, self.day)
        pages = {"/": lambda: _html(home_page()),
                 "/quotes": lambda: self._quotes_page(target, cookie, day),
                 "/api/quotes": lambda: self._quotes_api(cookie, day),
                 "/sign-in": lambda: _html(sign_in_page(_next(query))),
                 "/grid": lambda: _html(grid_page(day, self._flag("no_total"))),
                 "/api/rows": lambda: self._rows_api(query, day),
                 "/table.png": lambda: Answer(200, table_png(day, self._flag("rules")),
                                              {"Content-Type": "image/png", "Cache-Control": "no-store"}),
                 "/table-page": lambda: _html(table_page(day)),
                 "/billing": lambda: _html(billing_page(day)),
                 "/invoice.pdf": lambda: self._invoice(day, "download" in query),
                 "/summary": lambda: _html(summary_page(day)),
                 "/api/summary": lambda: self._summary_api(day)}
        made = pages.get(path)
        return _with_layout(made() if made else Answer(404, b"not here"))

    def post(self, target: str, body: str, cookie: str = "") -> Answer:
        self._log("POST", target, cookie)
        path, query = _split(target)
        if path != "/sign-in":
            return _with_layout(Answer(405, b"only the sign-in form posts here"))
        form = parse_qs(body)
        if form.get("email", [""])[0].strip() != EMAIL or form.get("password", [""])[0] != PASSWORD:
            return _with_layout(_html(sign_in_page(_next(query), "Wrong email or password."), 200))
        token = secrets.token_hex(16)
        with self.lock:
            self.sessions.add(token)
        return _with_layout(Answer(303, b"", {"Location": _next(query),
                                              "Set-Cookie": f"session={token}; Path=/; HttpOnly; SameSite=Lax"}))

    def _log(self, method: str, target: str, cookie: str) -> None:
        with self.lock:
            self.requests.append((method, target, cookie))

    def signed_in(self, cookie: str) -> bool:
        with self.lock:
            return _cookie(cookie, "session") in self.sessions

    def _quotes_page(self, target: str, cookie: str, day: int) -> Answer:
        if self._flag("signed_in") and not self.signed_in(cookie):
            return Answer(303, b"", {"Location": "/sign-in?" + urlencode({"next": target})})
        return _html(quotes_page(day, self._flag("redesign")))

    def _quotes_api(self, cookie: str, day: int) -> Answer:
        if self._flag("signed_in") and not self.signed_in(cookie):
            return _json({"error": "not signed in"}, 401)
        listed = quotes(day)
        if self._flag("reshaped"):
            return _json({"data": {"items": [{"symbol": q["ticker"], "last": q["price"], "chg": q["change"],
                                              "vol": q["volume"]} for q in listed]}, "meta": {"day": day}})
        return _json({"quotes": list(listed), "day": day})

    def _rows_api(self, query: dict[str, list[str]], day: int) -> Answer:
        with self.lock:
            late = self.grid_delay_ms
        time.sleep(late / 1000)
        offset = max(0, _int(query, "offset", 0))
        limit = min(GRID_PAGE, max(1, _int(query, "limit", GRID_PAGE)))
        rows = list(grid_rows(day)[offset:offset + limit])
        if self._flag("no_total"):
            return _json({"rows": rows, "next": offset + len(rows) if offset + len(rows) < GRID_ROWS else None})
        return _json({"rows": rows, "offset": offset, "total": GRID_ROWS})

    def _summary_api(self, day: int) -> Answer:
        with self.lock:
            late = self.summary_delay_ms
        time.sleep(late / 1000)
        return _json({"turnover": summary(day)["turnover"]})

    def _invoice(self, day: int, download: bool) -> Answer:
        how = "attachment" if download else "inline"
        with self.lock:
            self.invoices_served.append(how)
        return Answer(200, invoice_pdf(day), {"Content-Type": "application/pdf",
                                              "Content-Disposition": f'{how}; filename="invoice-{day}.pdf"'})


def _split(target: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(target)
    return parts.path.rstrip("/") or "/", parse_qs(parts.query)


def _int(query: dict[str, list[str]], name: str, default: int) -> int:
    try:
        return int(query.get(name, [str(default)])[0])
    except ValueError:
        return default


def _day(query: dict[str, list[str]], default: int) -> int:
    return _int(query, "day", default)


def _next(query: dict[str, list[str]]) -> str:
    wanted = query.get("next", ["/quotes"])[0]
    return wanted if wanted.startswith("/") and not wanted.startswith("//") else "/quotes"  # never off-site


def _cookie(header: str, name: str) -> str | None:
    try:
        jar = SimpleCookie(header)
    except CookieError:
        return None
    return jar[name].value if name in jar else None


def _with_layout(answer: Answer) -> Answer:
    cookies = [c for c in [answer.headers.get("Set-Cookie")] if c]
    answer.headers["Set-Cookie"] = "layout=wide; Path=/; SameSite=Lax"
    if cookies:
        answer.headers["Set-Cookie"] += "\n" + cookies[0]  # the server splits these into two headers
    return answer


def _html(text: str, status: int = 200) -> Answer:
    return Answer(status, text.encode(), {"Content-Type": "text/html; charset=utf-8"})


def _json(value: object, status: int = 200) -> Answer:
    return Answer(status, json.dumps(value, ensure_ascii=False).encode(),
                  {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"})


# -- pages ---------------------------------------------------------------------------------------

STYLE = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d2433;background:#f4f6fa}
.topbar{display:flex;gap:24px;align-items:center;background:#0b2545;color:#fff;padding:10px 24px}
.topbar a{color:#cfe0ff;text-decoration:none}.topbar .brand{font-weight:700;color:#fff}
main{padding:16px 24px;max-width:1040px}
"""


def _layout(title: str, body: str, extra_style: str = "") -> str:
    nav = "".join(f'<a href="{href}">{name}</a>' for href, name in
                  [("/quotes", "Quotes"), ("/grid", "Screener"), ("/table-page", "Snapshot"),
                   ("/summary", "Summary"), ("/billing", "Billing")])
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} · {SITE_NAME}'
            f'</title><style>{STYLE}{extra_style}</style></head><body><header class="topbar">'
            f'<a class="brand" href="/">{SITE_NAME}</a><nav class="topnav">{nav}</nav></header>'
            f"<main>{body}</main></body></html>")


def home_page() -> str:
    return _layout("Home", "<h1>Markets at a glance</h1><ul>"
                   '<li><a href="/quotes">Quotes chart</a></li><li><a href="/grid">Stock screener</a></li>'
                   '<li><a href="/table-page">Closing snapshot</a></li><li><a href="/summary">Market summary</a></li>'
                   '<li><a href="/billing">Billing</a></li></ul>')


def sign_in_page(next_path: str, error: str = "") -> str:
    said = f'<p class="form-error" role="alert">{html.escape(error)}</p>' if error else ""
    return _layout("Sign in", f"""<h1>Sign in</h1><p>Sign in to see live quotes.</p>{said}
<form method="post" action="/sign-in?{html.escape(urlencode({'next': next_path}))}" class="auth-form">
<label>Email <input type="email" name="email" autocomplete="username" required></label><br>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label><br>
<button type="submit">Sign in</button></form>""")


# The chart code draws labels only; it reads either shape of the API, as a front end that was
# changed along with its API would.
QUOTES_SCRIPT = """
const day = %(day)d;
function normalise(body) {
  if (body.quotes) return body.quotes.map(q => ({t: q.ticker, p: q.price, c: q.change}));
  return body.data.items.map(q => ({t: q.symbol, p: q.last, c: q.chg}));
}
fetch('/api/quotes?day=' + day, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
  .then(r => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
  .then(body => { draw(document.getElementById('%(canvas)s'), normalise(body)); document.body.dataset.drawn = '1'; })
  .catch(e => { document.getElementById('%(status)s').textContent = 'Could not load quotes.'; });
"""

VERTICAL_BARS = """
function draw(canvas, qs) {
  const g = canvas.getContext('2d'), W = canvas.width, H = canvas.height, top = 40, bottom = 50;
  const max = Math.max(...qs.map(q => q.p)) * 1.1, slot = (W - 40) / qs.length;
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
  g.strokeStyle = '#d0d6e2'; g.beginPath(); g.moveTo(20, H - bottom); g.lineTo(W - 20, H - bottom); g.stroke();
  g.textAlign = 'center'; g.font = '13px "DejaVu Sans", sans-serif';
  qs.forEach((q, i) => {
    const h = (H - top - bottom) * q.p / max, x = 20 + i * slot + slot * 0.18, w = slot * 0.64;
    g.fillStyle = q.c < 0 ? '#d64545' : '#2f9e63'; g.fillRect(x, H - bottom - h, w, h);
    g.fillStyle = '#1d2433'; g.fillText(q.p.toFixed(2), x + w / 2, H - bottom - h - 8);
    g.fillText(q.t, x + w / 2, H - bottom + 20);
  });
}
"""

HORIZONTAL_BARS = """
function draw(canvas, qs) {
  const g = canvas.getContext('2d'), W = canvas.width, H = canvas.height, left = 130, right = 110;
  const max = Math.max(...qs.map(q => q.p)), row = H / qs.length;
  g.fillStyle = '#fbfbf8'; g.fillRect(0, 0, W, H);
  g.font = 'bold 14px "DejaVu Sans", sans-serif'; g.textBaseline = 'middle';
  qs.forEach((q, i) => {
    const y = i * row + row / 2, w = (W - left - right) * q.p / max;
    g.fillStyle = '#44475a'; g.textAlign = 'right'; g.fillText(q.t, left - 12, y);
    g.fillStyle = q.c < 0 ? '#e06c75' : '#5b8def'; g.fillRect(left, y - row * 0.3, w, row * 0.6);
    g.fillStyle = '#44475a'; g.textAlign = 'left'; g.fillText(q.p.toFixed(2), left + w + 8, y);
  });
}
"""


def quotes_page(day: int, redesign: bool) -> str:
    if redesign:
        body = ('<section class="mkt-v2__panel"><div class="mkt-v2__head"><h2 class="mkt-v2__title">Markets '
                'today</h2><span class="mkt-v2__badge">Live</span></div><figure class="mkt-v2__figure">'
                '<canvas id="mv2-canvas" class="mkt-v2__canvas" width="900" height="520" role="img" '
                'aria-label="Last price by ticker"></canvas><figcaption class="mkt-v2__caption">Last price by '
                'ticker, bars coloured by direction.</figcaption></figure><div id="mv2-msg" class="mkt-v2__msg">'
                '</div></section>')
        script = HORIZONTAL_BARS + QUOTES_SCRIPT % {"day": day, "canvas": "mv2-canvas", "status": "mv2-msg"}
        style = ".mkt-v2__panel{background:#fff;border-radius:14px;padding:20px;box-shadow:0 2px 8px #0002}"
    else:
        body = ('<h1>Today\'s quotes</h1><p class="asof">Prices at the close. Green: up on the day, red: down.'
                '</p><div class="chart-card"><canvas id="quotes-chart" width="960" height="420" role="img" '
                'aria-label="Price chart"></canvas></div><p class="status" id="status"></p>')
        script = VERTICAL_BARS + QUOTES_SCRIPT % {"day": day, "canvas": "quotes-chart", "status": "status"}
        style = ".chart-card{background:#fff;border:1px solid #dde3ee;padding:12px;display:inline-block}"
    return _layout("Quotes", body + f"<script>{script}</script>", style)


GRID_STYLE = """
.grid{border:1px solid #c9d1de;background:#fff;width:640px;font-variant-numeric:tabular-nums}
.grid-head,.grid-row{display:grid;grid-template-columns:240px 200px 200px;height:28px;align-items:center}
.grid-head{background:#e9eef6;font-weight:600;border-bottom:1px solid #c9d1de}
.grid-body{height:560px;overflow-y:auto;position:relative}
.grid-row{position:absolute;left:0;right:0;border-bottom:1px solid #eef1f6}
.grid-cell{padding:0 10px;white-space:nowrap;overflow:hidden}.num{text-align:right}
.grid-row.loading{color:#8a94a6;font-style:italic}
"""

GRID_SCRIPT = """
const DAY = %(day)d, ROW = 28, PAGE = %(page)d, OVERSCAN = 10, KNOWN_TOTAL = %(total)s;
const body = document.getElementById('grid-body'), spacer = document.getElementById('grid-spacer');
const pages = new Map(); let rowCount = KNOWN_TOTAL || PAGE, ended = KNOWN_TOTAL !== null;
const fmtPrice = new Intl.NumberFormat('en-US', {minimumFractionDigits: 2, maximumFractionDigits: 2});
const fmtInt = new Intl.NumberFormat('en-US');
spacer.style.height = (rowCount * ROW) + 'px';
function load(p) {
  if (pages.has(p)) return;
  pages.set(p, null);
  fetch(`/api/rows?day=${DAY}&offset=${p * PAGE}&limit=${PAGE}`).then(r => r.json()).then(got => {
    pages.set(p, got.rows);
    if (KNOWN_TOTAL === null) {
      ended = got.next === null;
      const seen = p * PAGE + got.rows.length;
      rowCount = Math.max(rowCount, ended ? seen : seen + PAGE);
      spacer.style.height = (rowCount * ROW) + 'px';
    }
    render();
  }).catch(() => pages.delete(p));
}
function cell(text, cls) { const d = document.createElement('div'); d.className = 'grid-cell ' + cls;
  d.setAttribute('role', 'gridcell'); d.textContent = text; return d; }
function render() {
  const first = Math.max(0, Math.floor(body.scrollTop / ROW) - OVERSCAN);
  const last = Math.min(rowCount, Math.ceil((body.scrollTop + body.clientHeight) / ROW) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) {
    const got = pages.get(Math.floor(i / PAGE)), r = got && got[i %% PAGE];
    const el = document.createElement('div');
    el.setAttribute('role', 'row'); el.setAttribute('aria-rowindex', String(i + 2));
    el.style.top = (i * ROW) + 'px';
    if (r) { el.className = 'grid-row';
      el.append(cell(r.ticker, 'sym'), cell(fmtPrice.format(r.price), 'num'), cell(fmtInt.format(r.volume), 'num'));
    } else if (got === undefined || got === null) { el.className = 'grid-row loading';
      el.append(cell('Loading…', 'sym'), cell('', 'num'), cell('', 'num')); load(Math.floor(i / PAGE));
    } else continue;
    rows.push(el);
  }
  body.replaceChildren(spacer, ...rows);
}
let queued = false;
body.addEventListener('scroll', () => {
  if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; render(); }); }
});
render();
"""


def grid_page(day: int, no_total: bool) -> str:
    heading = "<h1>Stock screener</h1>" if no_total else "<h1>Stock screener · 5,000 rows</h1>"
    under = ("<p>Every listed stock, updated at the close. Scroll the list to see more.</p>" if no_total else
             "<p>Showing 5,000 rows: every listed stock, updated at the close.</p>")
    rowcount = "-1" if no_total else str(GRID_ROWS + 1)  # ARIA counts the header row too
    grid = (f'<div class="grid" role="grid" aria-label="Stocks" aria-rowcount="{rowcount}">'
            '<div class="grid-head" role="row" aria-rowindex="1"><div class="grid-cell" role="columnheader">Ticker'
            '</div><div class="grid-cell num" role="columnheader">Price</div><div class="grid-cell num" '
            'role="columnheader">Volume</div></div><div class="grid-body" id="grid-body" role="rowgroup">'
            '<div id="grid-spacer" style="width:1px"></div></div></div>')
    script = GRID_SCRIPT % {"day": day, "page": GRID_PAGE, "total": "null" if no_total else GRID_ROWS}
    return _layout("Screener", heading + under + grid + f"<script>{script}</script>", GRID_STYLE)


def table_page(day: int) -> str:
    return _layout("Snapshot", '<h1>Closing snapshot</h1><p>The closing prices, as published by the exchange.</p>'
                   f'<figure><img src="/table.png?day={day}" alt="Closing prices" width="640"></figure>')


def billing_page(day: int) -> str:
    number = invoice(day)["number"]
    return _layout("Billing", f"""<h1>Billing</h1><p>Your latest invoice is {html.escape(number)}.</p>
<ul class="invoice-actions">
<li><a href="/invoice.pdf?day={day}">View invoice</a></li>
<li><a href="/invoice.pdf?day={day}" target="_blank" rel="noopener">Open in a new tab</a></li>
<li><a href="/invoice.pdf?day={day}&amp;download=1">Download PDF</a></li></ul>""")


SUMMARY_SCRIPT = """
fetch('/api/summary?day=%(day)d').then(r => r.json()).then(s => {
  document.getElementById('turnover').textContent =
    new Intl.NumberFormat('en-US', {minimumFractionDigits: 2, maximumFractionDigits: 2}).format(s.turnover);
});
"""


def summary_page(day: int) -> str:
    s = summary(day)
    volume = f"{s['total_volume']:,}"
    return _layout("Summary", f"""<h1>Market summary</h1>
<p class="headline">Total volume <strong>{volume}</strong></p>
<table class="summary"><caption>Breadth</caption><tbody>
<tr><th scope="row">Total volume</th><td>{volume}</td></tr>
<tr><th scope="row">Advancing</th><td>{s['advancing']}</td></tr>
<tr><th scope="row">Declining</th><td>{s['declining']}</td></tr>
<tr><th scope="row">Turnover</th><td id="turnover">Loading…</td></tr></tbody></table>
<script>{SUMMARY_SCRIPT % {'day': day}}</script>""",
                   "table.summary td{text-align:right;padding:4px 16px}table.summary th{text-align:left}")


# -- the picture and the PDF ------------------------------------------------------------------------

@cache
def table_png(day: int, rules: bool) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    font, bold = ImageFont.truetype(DEJAVU, 22), ImageFont.truetype(DEJAVU_BOLD, 22)
    names = ImageFont.truetype(cjk_font() or DEJAVU, 22)
    columns, row_height, rows = [(24, "left"), (400, "right"), (600, "right")], 44, table_rows(day)
    picture = Image.new("RGB", (640, row_height * (len(rows) + 1) + 8), "white")
    pen = ImageDraw.Draw(picture)
    cells = [["Ticker", "Price", "Change %"]] + [
        [r["ticker"], f"{r['price']:,.2f}", f"{r['change']:+.2f}"] for r in rows]
    for n, line in enumerate(cells):
        y = 4 + n * row_height + row_height // 2
        for (x, align), text in zip(columns, line):
            face = bold if n == 0 else (names if x == 24 else font)
            pen.text((x, y), text, fill="black", font=face, anchor="lm" if align == "left" else "rm")
    if rules:
        for n in range(len(cells) + 1):
            pen.line([(8, 4 + n * row_height), (632, 4 + n * row_height)], fill="#555555", width=1)
        for x in (8, 240, 420, 632):
            pen.line([(x, 4), (x, 4 + len(cells) * row_height)], fill="#555555", width=1)
    out = BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


# Helvetica's widths (per 1000 units) of what the amounts are written with, to right-align them.
HELVETICA = {**{d: 556 for d in "0123456789"}, ",": 278, ".": 278, " ": 278, "$": 556}


def _width(text: str, size: float) -> float:
    return sum(HELVETICA.get(ch, 556) for ch in text) * size / 1000


def _pdf_text(x: float, y: float, text: str, size: float = 10, font: str = "F1", right: bool = False) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    at = x - _width(text, size) if right else x
    return f"BT /{font} {size} Tf {at:.2f} {y:.2f} Td ({escaped}) Tj ET"


@cache
def invoice_pdf(day: int) -> bytes:
    bill = invoice(day)
    ops = [_pdf_text(56, 760, SITE_NAME, 18, "F2"), _pdf_text(56, 740, "1 Harbour Street, Seattle WA"),
           _pdf_text(400, 760, "INVOICE", 18, "F2"), _pdf_text(400, 740, f"No. {bill['number']}"),
           _pdf_text(400, 726, f"Date {bill['date']}"), _pdf_text(56, 690, "Bill to: Alice Trader")]
    columns = [(56, "Description", False), (360, "Qty", True), (450, "Unit price", True), (540, "Amount", True)]
    y = 640
    ops += [_pdf_text(x, y, name, 10, "F2", right) for x, name, right in columns]
    ops.append(f"0.5 w 56 {y - 6} m 540 {y - 6} l S")
    for item in bill["items"]:
        y -= 22
        cells = [item["description"], str(item["qty"]), f"{item['unit_price']:,.2f}", f"{item['amount']:,.2f}"]
        ops += [_pdf_text(x, y, text, 10, "F1", right) for (x, _, right), text in zip(columns, cells)]
    ops.append(f"0.5 w 360 {y - 10} m 540 {y - 10} l S")
    ops += [_pdf_text(450, y - 28, "Total (USD)", 11, "F2", True),
            _pdf_text(540, y - 28, f"{bill['total']:,.2f}", 11, "F2", True),
            _pdf_text(56, 120, "Payment due within 30 days. Thank you for your business.", 9)]
    content = "\n".join(ops)
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> "
        "/Contents 6 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        f"<< /Length {len(content.encode('latin-1'))} >>\nstream\n{content}\nendstream",
    ]
    return written(objects)

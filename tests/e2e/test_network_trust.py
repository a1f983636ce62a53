"""The network rung, attacked: a signed-in board whose every fetch carries a credential the way
real sites carry them (a cookie, a bearer header, a key in the query, a JWT in the path, a token
echoed in the body, the person's own secret shown back) is read from its own JSON — on the record
and on a rerun with new tokens and no model — and not one of those credentials reaches the store,
the events, `tail`, `recipe show`, the exported script or a prompt. A fetch that a redirect sends
through another site is never read."""

from __future__ import annotations

import base64
import json
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest

from kit import answer, call, finished, plan, rows, run_cli, run_goal, verdict

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
PERSONS_SECRET = "Correct-Horse-7"  # low entropy: only knowing it was handed in tells it apart
SCHEMA = {"type": "object", "required": ["entries"], "additionalProperties": False, "properties": {
    "entries": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["label", "amount"], "additionalProperties": False,
        "properties": {"label": {"type": "string"}, "amount": {"type": "number"}}}}}}


def _jwt() -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': secrets.token_hex(4)})}.{secrets.token_urlsafe(32)}"


@dataclass
class Fetch:
    """One fetch the board makes: where to, with what headers, and what its answer adds to the data."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    set_cookie: str = ""
    secret: str = ""  # what must be found nowhere


def _fetches(signed_in: str) -> list[Fetch]:
    """A day's fetches, with that day's credentials (a new sign-in mints new ones)."""
    t = {name: value for name, value in {
        "sessionid": secrets.token_urlsafe(12), "jwt": _jwt(), "access_key": secrets.token_hex(10),
        "x_access": f"xak-{secrets.token_hex(4)}", "key": f"k{secrets.token_hex(6)}", "sig": secrets.token_hex(8),
        "token": secrets.token_urlsafe(9), "amz": secrets.token_hex(32), "bearer": secrets.token_urlsafe(18),
        "jwt_path": _jwt(), "hex": secrets.token_hex(16), "b64": secrets.token_urlsafe(32),
        "b64_path": secrets.token_urlsafe(30), "bare": secrets.token_hex(20), "auth": secrets.token_urlsafe(10),
        "csrf": secrets.token_urlsafe(10), "hex_key": secrets.token_hex(16)}.items()}
    return [
        Fetch("sessionid field", "/api/a", extra={"sessionid": t["sessionid"]}, secret=t["sessionid"]),
        Fetch("jwt field", "/api/b", extra={"jwt": t["jwt"]}, secret=t["jwt"]),
        Fetch("access_key field", "/api/c", extra={"access_key": t["access_key"]}, secret=t["access_key"]),
        Fetch("X-Access-Key header, echoed", "/api/d", headers={"X-Access-Key": t["x_access"]},
              extra={"client": {"ref": t["x_access"]}}, secret=t["x_access"]),
        Fetch("?key=, echoed", f"/api/e?key={t['key']}", extra={"echo": t["key"]}, secret=t["key"]),
        Fetch("?sig=", f"/api/f?page=1&sig={t['sig']}", secret=t["sig"]),
        Fetch("?token=", f"/api/g?token={t['token']}", secret=t["token"]),
        Fetch("?X-Amz-Signature=", f"/api/h?X-Amz-Signature={t['amz']}", secret=t["amz"]),
        Fetch("Bearer in a body", "/api/i", extra={"header": f"Bearer {t['bearer']}"}, secret=t["bearer"]),
        Fetch("JWT in the path", f"/api/t/{t['jwt_path']}/j", secret=t["jwt_path"]),
        Fetch("hex 32 in a body", "/api/k", extra={"ref": t["hex"]}, secret=t["hex"]),
        Fetch("base64url 40+ in a body", "/api/l", extra={"blob": t["b64"]}, secret=t["b64"]),
        Fetch("base64url in the path", f"/api/s/{t['b64_path']}/m", secret=t["b64_path"]),
        Fetch("a bare query name", f"/api/n?{t['bare']}", secret=t["bare"]),
        Fetch("the sign-in cookie, echoed", "/api/o", extra={"viewer": signed_in}, secret=signed_in),
        Fetch("Authorization, echoed", "/api/p", headers={"Authorization": f"Bearer {t['auth']}"},
              extra={"owner": t["auth"]}, secret=t["auth"]),
        Fetch("a cookie set by the answer, echoed", "/api/q", set_cookie=f"csrftoken={t['csrf']}; Path=/",
              extra={"state": t["csrf"]}, secret=t["csrf"]),
        Fetch("a token as a key", "/api/r", extra={"by": {t["hex_key"]: 1}}, secret=t["hex_key"]),
        Fetch("the person's secret, echoed", "/api/u", extra={"note": f"Welcome back, {PERSONS_SECRET}"},
              secret=PERSONS_SECRET),
    ]


class Board:
    """A signed-in dashboard on 127.0.0.1 that draws on a canvas what each of `fetches` answers, and
    `other`, a second origin (another port) that answers anything for anyone."""

    def __init__(self) -> None:
        self._servers = [ThreadingHTTPServer(("127.0.0.1", 0), self._handler()) for _ in range(2)]
        self.day = 1
        self.fetches: list[Fetch] = []
        self.signed_in = ""
        self.minted: set[str] = set()
        self.new_day()

    def new_day(self, day: int = 1) -> None:
        self.day, self.signed_in = day, secrets.token_urlsafe(16)
        self.fetches = _fetches(self.signed_in)
        self.minted |= {f.secret for f in self.fetches} | {self.signed_in}

    def entries(self, number: int) -> list[dict[str, Any]]:
        """What fetch `number` serves today: its own amounts, so its data is in its answer only."""
        return [{"label": f"Row {n}", "amount": self.day * 1000 + number * 10 + n} for n in range(1, 4)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servers[0].server_address[1]}"

    @property
    def other(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    def _page(self, script: str) -> bytes:
        return ("<!doctype html><title>Board</title><h1>Board</h1><canvas width='400' height='120'></canvas>"
                "<script>const pen = document.querySelector('canvas').getContext('2d');"
                "const draw = (d) => ((d && d.entries) || [])"
                ".forEach((e, n) => pen.fillRect(n * 9, 0, 8, e.amount % 97));"
                f"{script}</script>").encode()

    def _board(self) -> bytes:
        calls = "".join(f"fetch({json.dumps(f.url)}, {{headers: {json.dumps(f.headers)}}})"
                        f".then((r) => r.json()).then(draw);" for f in self.fetches)
        return self._page(calls)

    def _redirected(self) -> bytes:
        """The same site asked three times: answered at home; sent to the other origin; sent there
        and back home."""
        return self._page("const asked = ['/api/home', '/api/round-trip'];"
                          "for (let n = 0; n < 100; n++) asked.push(`/api/moved?n=${n}`);"
                          "for (const u of asked) fetch(u).then((r) => r.json()).then(draw);")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        board = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                home = self.server.server_address[1] == board._servers[0].server_address[1]
                if path == "/board":
                    self._send(board._board(), "text/html", {"Set-Cookie": f"sessionid={board.signed_in}; "
                                                            "Path=/; HttpOnly", "X-Extra-Cookie": ""})
                elif path == "/redirected":
                    self._send(board._redirected(), "text/html")
                elif path == "/api/home" and home:
                    self._json({"entries": board.entries(50)})
                elif path == "/api/moved" and home:
                    self._bounce(f"{board.other}/api/elsewhere")
                elif path == "/api/round-trip" and home:
                    self._bounce(f"{board.other}/bounce-home")
                elif path == "/bounce-home" and not home:
                    self._bounce(f"{board.url}/api/chosen-elsewhere")
                elif path == "/api/chosen-elsewhere" and home:
                    self._json({"entries": board.entries(52)})
                elif path == "/api/elsewhere" and not home:
                    self._json({"entries": board.entries(51)})
                else:
                    number, fetch = next(((n, f) for n, f in enumerate(board.fetches)
                                          if urlsplit(f.url).path == path), (-1, None))
                    if fetch is None:
                        self._send(b"not here", "text/plain", status=404)
                        return
                    headers = {"Set-Cookie": fetch.set_cookie} if fetch.set_cookie else {}
                    self._json({"entries": board.entries(number), **fetch.extra}, headers)

            def _bounce(self, to: str) -> None:
                self.send_response(302)
                self.send_header("Location", to)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _json(self, body: Any, headers: dict[str, str] | None = None) -> None:
                self._send(json.dumps(body).encode(), "application/json",
                           {"Access-Control-Allow-Origin": "*", **(headers or {})})

            def _send(self, body: bytes, mime: str, headers: dict[str, str] | None = None, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", mime)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    if value:
                        self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    def __enter__(self) -> Board:
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


@pytest.fixture
def board() -> Iterator[Board]:
    with Board() as served:
        yield served


def _script(keys: list[str], answers: list[Any]) -> dict[str, Any]:
    """Five panels a step (a step's turns are bounded), each read by one extract."""
    steps = [keys[n:n + 5] for n in range(0, len(keys), 5)]
    navigator = []
    for step in steps:
        navigator += [answer(call("extract", instruction=f"the entries of {key}", key=key, schema="entries"))
                      for key in step]
        navigator.append(finished(summary=f"{', '.join(step)} read"))
    return {"planner": [plan(*(f"Read {', '.join(step)}" for step in steps))],
            "navigator": navigator,
            "extractor": [answer(call("extracted", data=a)) for a in answers],
            "validator": [verdict(True, "read") for _ in range(len(steps) + 1)]}


def _record(db_path: Path, tmp_path: Path, model: Any, url: str, name: str, *flags: str) -> list[dict[str, Any]]:
    path = tmp_path / "entries.schema.json"
    path.write_text(json.dumps(SCHEMA))
    result, events = run_goal(db_path, model, url, "read every panel", "--schema", f"entries={path}",
                              "--save-recipe", name, "--secret", f"PW={PERSONS_SECRET}", *flags)
    assert result.returncode == 0, result.stderr
    return [e for e in events if e["type"] == "EXTRACTED"]


def _rerun(db_path: Path, name: str) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", name, "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                     "--secret", f"PW={PERSONS_SECRET}", "--json")
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]
    return result, events


def _every_stored_value(db_path: Path) -> Iterator[str]:
    """Every value of every column of every table, as text, and the store's files as bytes."""
    conn = sqlite3.connect(db_path)
    try:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")]
        for table in tables:
            for row in conn.execute(f'select * from "{table}"'):
                for value in row:
                    yield value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    finally:
        conn.close()
    for path in db_path.parent.glob(f"{db_path.name}*"):
        yield path.read_bytes().decode("utf-8", "replace")


def test_a_signed_in_boards_own_json_is_read_and_none_of_its_credentials_is_kept_anywhere(
        board: Board, model_server, db_path: Path, tmp_path: Path) -> None:
    keys = [f"panel{n}" for n in range(len(board.fetches))]
    model = model_server(_script(keys, [{"entries": board.entries(n)} for n in range(len(keys))]))
    read = _record(db_path, tmp_path, model, f"{board.url}/board", "board")
    assert len(read) == len(keys)
    for fetch, extracted in zip(board.fetches, read):
        assert extracted["valid"], (fetch.name, extracted)
        assert extracted["network"] is not None, f"{fetch.name}: the page's own data was not found in its JSON"
    shown = run_cli("--db", str(db_path), "recipe", "show", "board").stdout
    assert "GET /api/t/*/j" in shown and "GET /api/s/*/m" in shown, shown  # a token in the path is generalised

    board.new_day(2)  # signed in again: every credential is new, and so is the data
    result, events = _rerun(db_path, "board")
    assert result.returncode == 0, result.stderr
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    reread = [e for e in events if e["type"] == "EXTRACTED"]
    assert [(e["read_by"], e["data"]) for e in reread] == [
        ("network", {"entries": board.entries(n)}) for n in range(len(keys))]

    exported = tmp_path / "board.py"
    assert run_cli("--db", str(db_path), "recipe", "export", "board", str(exported), "--as", "playwright"
                   ).returncode == 0
    said = [*_every_stored_value(db_path), exported.read_text(),
            run_cli("--db", str(db_path), "recipe", "show", "board").stdout,
            run_cli("--db", str(db_path), "tail", "-n", "100000").stdout,
            run_cli("--db", str(db_path), "tail", "--json", "-n", "100000").stdout,
            json.dumps(model.requests)]
    assert len(board.minted) >= 2 * 18
    leaked = {secret for secret in board.minted | {PERSONS_SECRET} for text in said if secret in text}
    assert not leaked, leaked


@pytest.mark.parametrize("guarded", [False, True])
def test_a_fetch_sent_through_another_site_by_a_redirect_is_never_read(
        guarded: bool, board: Board, model_server, db_path: Path, tmp_path: Path) -> None:
    """Home; the other origin, by a 302 from home (asked 100 times: with the domain guard routing
    requests, Playwright reports some such answers under the first hop's address, with no redirect
    to see); and home again by way of the other origin. Only the first is the page's own data."""
    keys = ["home", "moved", "round_trip"]
    model = model_server(_script(keys, [{"entries": board.entries(n)} for n in (50, 51, 52)]))
    guard = ["--allow-domain", "127.0.0.1"] if guarded else []
    read = _record(db_path, tmp_path, model, f"{board.url}/redirected", "redirected", *guard)
    assert [e["valid"] for e in read] == [True, True, True]
    assert read[0]["network"] is not None and read[0]["network"]["path"] == "/api/home"
    assert read[1]["network"] is None, read[1]
    if not guarded:  # where the hops are lost, home answered last: the page's own site's data
        assert read[2]["network"] is None, read[2]

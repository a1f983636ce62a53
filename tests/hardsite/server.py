"""Serves tests/hardsite/pages on two loopback ports, so iframes can be cross-origin for real.

Every request is logged (port, method, path, body), and so is every message a page sends on the
WebSocket at `/ws` (method "WS"), so a test can prove what reached the site and
what never did; `POST /api/…` stores its JSON body under that name, `GET /api/…` reads it back.
`expire_at` names a page that ends the session it is visited with, as a server whose session
expired would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
import time
from functools import cache
from io import BytesIO
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlencode, urlsplit

from hardsite.pdf import scanned_pdf, text_pdf
from hardsite.portal import Portal
from hardsite.things import Answer, Things

PAGES = Path(__file__).parent / "pages"
REPORT_CSV = "item,qty\nkimchi,1\ntofu,2\n"


def table_page(rows: int = 1000) -> str:
    body = "\n".join(
        f"<tr><td>Row {n}</td><td><input name='qty{n}' value='{n % 7}'></td>"
        f"<td><input name='note{n}'></td><td><input type='checkbox' name='ok{n}'></td></tr>"
        for n in range(1, rows + 1)
    )
    return (
        "<!doctype html><title>Big table</title><h1>Inventory</h1>"
        "<p>Fill in the quantities.</p><table><thead><tr><th>Item</th><th>Qty</th><th>Note</th>"
        f"<th>Done</th></tr></thead><tbody>{body}</tbody></table>"
    )


@cache
def _picture() -> bytes:
    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (24, 24), "black").save(out, "PNG")
    return out.getvalue()


def _json_or_text(body: str) -> object:
    try:
        return json.loads(body or "null")
    except json.JSONDecodeError:
        return body  # a form posted the way browsers post them


class HardSite:
    def __init__(self) -> None:
        self._servers = [ThreadingHTTPServer(("127.0.0.1", 0), self._handler()) for _ in range(2)]
        self.requests: list[tuple[int, str, str, str]] = []
        self.posted: dict[str, object] = {}
        self.expire_at: str | None = None  # a path whose page ends the session (the cookie `sid`)
        self.variant = ""  # the layout darkmode.html serves with no ?variant: an A/B test's pick
        self.slow: dict[str, float] = {}  # seconds an /api/ path takes to answer, as a busy server's do
        self.post_answers: dict[str, object] = {}  # what a POST to an /api/ path answers, instead of ok
        self.lock = threading.Lock()
        self.things = Things()  # an admin that makes objects, and a data browser (see things.py)
        self.portal = Portal()  # a customer portal nobody tuned recipes to (see portal.py)
        self.unanswered = threading.Event()  # set: the posts a page was never answered give up

    def port(self, which: int = 0) -> int:
        return int(self._servers[which].server_address[1])

    def reached(self, path: str, method: str | None = None, which: int | None = None) -> list[str]:
        """Bodies of the requests for `path` (on one server, when `which` is given)."""
        with self.lock:
            return [body for port, verb, got, body in self.requests
                    if got == path and (method is None or verb == method)
                    and (which is None or port == self.port(which))]

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.posted.clear()
            self.expire_at = None
            self.variant = ""
            self.slow.clear()
            self.post_answers.clear()
        self.things.reset()
        self.portal.reset()
        self.unanswered.set()  # the posts left hanging by the test before are let go
        self.unanswered = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servers[0].server_address[1]}"

    @property
    def other(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    def page(self, name: str) -> str:
        return f"{self.url}/{name}.html"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                path = urlsplit(self.path).path
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                with site.lock:
                    site.requests.append((self.server.server_address[1], "POST", path, body))
                    if path.startswith("/api/"):
                        site.posted[path[5:]] = _json_or_text(body)
                if path == "/bounce":
                    self._bounce(303)
                    return
                if site.things.answers(path):
                    self._answer(site.things.post(path, body))
                    return
                if site.portal.answers(path):
                    self._answer(site.portal.post(self.path, body, self.headers.get("Cookie", "")))
                    return
                if path == "/publish.html":
                    self._published(body)
                    return
                with site.lock:
                    answer = site.post_answers.get(path, {"ok": True})
                self._send(json.dumps(answer).encode(), "application/json")

            def _bounce(self, status: int) -> None:
                """`/bounce?to=URL&ms=N`: a redirect, to anywhere the query says, N milliseconds late."""
                query = parse_qs(urlsplit(self.path).query)
                target = query.get("to", ["/"])[0]
                time.sleep(int(query.get("ms", ["0"])[0]) / 1000)
                self.send_response(status)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _published(self, body: str) -> None:
                """An editor's form posted back to its own address (or its delete link opened): a 302 to
                the page saying what was done, as a CMS answers; with `nothing` in ?how=, no answer at
                all until `unanswered` is set."""
                query = parse_qs(urlsplit(self.path).query)
                how = query.get("how", [""])[0]
                if "nothing" in how.split(","):
                    site.unanswered.wait(120)
                    return
                said = _json_or_text(body)
                action = (said.get("action") if isinstance(said, dict)
                          else parse_qs(str(said)).get("action", ["draft"])[0])
                self.send_response(302)
                self.send_header("Location", f"/publish.html?{urlencode({'how': how, 'done': action})}")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                port = self.server.server_address[1]
                if path == "/ws" and self.headers.get("Upgrade", "").lower() == "websocket":
                    self._listen(port, path)
                    return
                with site.lock:
                    site.requests.append((port, "GET", path, ""))
                if path == "/publish/delete":  # publish.html's delete link, which deletes as it is opened
                    self._published("action=delete")
                    return
                if path.startswith("/api/"):
                    with site.lock:
                        stored, late = site.posted.get(path[5:]), site.slow.get(path, 0.0)
                    time.sleep(late)
                    self._send(json.dumps(stored).encode(), "application/json")
                    return
                other = site.other if port == site._servers[0].server_address[1] else site.url
                if site.things.answers(path):
                    self._answer(site.things.get(self.path))
                elif site.portal.answers(path):
                    self._answer(site.portal.get(self.path, self.headers.get("Cookie", "")))
                elif path == "/bounce":
                    self._bounce(302)
                elif path == "/slow.png":  # a picture that arrives `ms` milliseconds late
                    time.sleep(int(parse_qs(urlsplit(self.path).query).get("ms", ["500"])[0]) / 1000)
                    self._send(_picture(), "image/png")
                elif path.startswith("/product/"):  # one page for every product, named by its slug
                    self._send((PAGES / "product.html").read_bytes(), "text/html")
                elif path == "/table.html":
                    self._send(table_page().encode(), "text/html")
                elif path == "/files/invoice.pdf":  # today's invoice (a test sets it), as a PDF with a text layer
                    with site.lock:
                        invoice = dict(site.posted.get("invoice") or {})  # type: ignore[call-overload]
                    lines = ["ACME Supplies", f"Invoice no. {invoice.get('number', '')}",
                             f"Date: {invoice.get('date', '')}"]
                    lines += [f"Total due: ${invoice['total']:,.2f} USD"] if "total" in invoice else []
                    made = scanned_pdf if invoice.get("scanned") else text_pdf
                    self._send(made(lines), "application/pdf",
                               {"Content-Disposition": 'attachment; filename="invoice.pdf"'})
                elif path == "/files/report.csv":
                    self._send(REPORT_CSV.encode(), "text/csv",
                               {"Content-Disposition": 'attachment; filename="report.csv"'})
                elif (PAGES / path.lstrip("/")).is_file() and ".." not in path:
                    html = (PAGES / path.lstrip("/")).read_text(encoding="utf-8")
                    mime = "text/javascript" if path.endswith(".js") else "text/html"
                    ending = {"Set-Cookie": "sid=; Max-Age=0; Path=/"} if path == site.expire_at else None
                    html = html.replace("{{OTHER}}", other).replace("{{VARIANT}}", site.variant)
                    self._send(html.encode(), mime, ending)
                else:
                    self._send(b"not here", "text/plain", status=404)

            def _listen(self, port: int, path: str) -> None:
                """A WebSocket (RFC 6455) that logs every text message the page sends as ("WS", body)."""
                key = self.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
                self.send_response(101)
                self.send_header("Upgrade", "websocket")
                self.send_header("Connection", "Upgrade")
                self.send_header("Sec-WebSocket-Accept", base64.b64encode(hashlib.sha1(key.encode()).digest()).decode())
                self.end_headers()
                self.wfile.flush()
                while (head := self.rfile.read(2)) and len(head) == 2:
                    opcode, size = head[0] & 0x0F, head[1] & 0x7F
                    if size >= 126:
                        size = struct.unpack(">H" if size == 126 else ">Q", self.rfile.read(2 if size == 126 else 8))[0]
                    mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
                    data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(size)))
                    if opcode == 8:
                        return
                    if opcode == 1:
                        with site.lock:
                            site.requests.append((port, "WS", path, data.decode()))
                self.close_connection = True

            def _answer(self, answer: Answer) -> None:
                self.send_response(answer.status)
                for key, value in {"Content-Type": "text/plain; charset=utf-8", **answer.headers}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                try:
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, body: bytes, mime: str, headers: dict[str, str] | None = None,
                      status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", f"{mime}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the browser closed before the answer came

        return Handler

    def __enter__(self) -> HardSite:
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

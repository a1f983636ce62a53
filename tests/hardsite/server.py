"""Serves tests/hardsite/pages on two loopback ports, so iframes can be cross-origin for real."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

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


class HardSite:
    def __init__(self) -> None:
        self._servers = [ThreadingHTTPServer(("127.0.0.1", 0), self._handler()) for _ in range(2)]

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

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                port = self.server.server_address[1]
                other = site.other if port == site._servers[0].server_address[1] else site.url
                if path == "/table.html":
                    self._send(table_page().encode(), "text/html")
                elif path == "/files/report.csv":
                    self._send(REPORT_CSV.encode(), "text/csv",
                               {"Content-Disposition": 'attachment; filename="report.csv"'})
                elif (PAGES / path.lstrip("/")).is_file() and ".." not in path:
                    html = (PAGES / path.lstrip("/")).read_text(encoding="utf-8")
                    self._send(html.replace("{{OTHER}}", other).encode(), "text/html")
                else:
                    self._send(b"not here", "text/plain", status=404)

            def _send(self, body: bytes, mime: str, headers: dict[str, str] | None = None,
                      status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", f"{mime}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def __enter__(self) -> HardSite:
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

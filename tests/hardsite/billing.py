"""A signed-in billing page whose invoice is a PDF, linked the three ways sites link one: shown
inline in the browser's viewer, opened in a new tab, and downloaded. The invoice is served only
with the session cookie the billing page set, as a signed-in site serves it. A test sets the
invoice (`billing.invoice`) or any PDF bytes (`billing.pdf`) before the run reads them."""

from __future__ import annotations

import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hardsite.pdf import text_pdf

BILLING = """<!doctype html><html><head><title>Billing</title></head><body><h1>Billing</h1>
<p>Your latest invoice:</p><ul>
<li><a href="/invoice.pdf">View invoice</a></li>
<li><a href="/invoice.pdf?tab=1" target="_blank" rel="noopener">Open invoice in a new tab</a></li>
<li><a href="/invoice.pdf?download=1">Download invoice</a></li></ul></body></html>"""


def invoice_lines(invoice: dict[str, Any]) -> list[str]:
    lines = ["ACME Supplies", f"Invoice no. {invoice['number']}", f"Date: {invoice['date']}",
             "Description Qty Unit price Amount"]
    lines += [f"{item['description']} {item['qty']} ${item['unit_price']:,.2f} ${item['amount']:,.2f}"
              for item in invoice["items"]]
    return lines + [f"Total due: ${invoice['total']:,.2f} USD"]


class Billing:
    def __init__(self) -> None:
        self.invoice: dict[str, Any] = {}
        self.pdf: bytes | None = None  # served instead of the invoice when set
        self.cookie = secrets.token_hex(12)
        self.refused: list[str] = []  # invoice requests that came without the session cookie
        self.partner = ""  # another site's address, linked from /partner to open in a new tab
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 — http.server's name
                if self.path == "/billing":
                    self._send(BILLING.encode(), "text/html; charset=utf-8",
                               {"Set-Cookie": f"sid={site.cookie}; Path=/; HttpOnly"})
                elif self.path == "/partner":
                    self._send(f'<a href="{site.partner}" target="_blank">Open the partner offer</a>'.encode(),
                               "text/html; charset=utf-8", {})
                elif self.path.startswith("/invoice.pdf"):
                    if f"sid={site.cookie}" not in self.headers.get("Cookie", ""):
                        site.refused.append(self.path)
                        self._send(b"sign in first", "text/plain", {}, 401)
                        return
                    how = "attachment" if "download=1" in self.path else "inline"
                    body = site.pdf if site.pdf is not None else text_pdf(invoice_lines(site.invoice))
                    self._send(body, "application/pdf", {"Content-Disposition": f'{how}; filename="invoice.pdf"'})
                else:
                    self._send(b"not here", "text/plain", {}, 404)

            def _send(self, body: bytes, kind: str, headers: dict[str, str], status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/billing"

    def __enter__(self) -> Billing:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

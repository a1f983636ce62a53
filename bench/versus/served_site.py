"""The pages both agents work on, served on 127.0.0.1, and what they report back.

The bench learns that a goal was reached from the page itself (a form posted the right values),
never from what an agent says about its run.
"""

from __future__ import annotations

import json
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGES = Path(__file__).with_name("pages")


class SiteLog:
    """When the first page was asked for, and what each task's page reported."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.first_page_at: float | None = None
        self.reports: dict[str, dict[str, str]] = {}

    def reset(self) -> None:
        with self.lock:
            self.first_page_at, self.reports = None, {}


class _Handler(SimpleHTTPRequestHandler):
    log: SiteLog

    def do_GET(self) -> None:
        if self.path == "/favicon.ico":  # asked by every browser; the pages have none
            self.send_response(204)
            self.end_headers()
            return
        if self.path.endswith(".html"):
            with self.log.lock:
                self.log.first_page_at = self.log.first_page_at or time.monotonic()
        super().do_GET()

    def do_POST(self) -> None:
        task = self.path.rsplit("/", 1)[-1]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.log.lock:
            self.log.reports[task] = json.loads(body or b"{}")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        pass


def serve_site() -> tuple[str, SiteLog, ThreadingHTTPServer]:
    log = SiteLog()
    handler = type("SiteHandler", (_Handler,), {"log": log})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(PAGES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", log, server

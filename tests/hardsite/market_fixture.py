"""Serves a `Market` (hardsite/market.py) on a loopback port: `serve_market(market)` gives its
base URL and a function that stops it; the `market_site` fixture does it for one test.

    from hardsite.market_fixture import market_site  # noqa: F401  (a fixture)

    def test_something(market_site: MarketSite) -> None:
        market_site.market.vary(redesign=True)
        url = market_site.page("/quotes")
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator

import pytest

from hardsite.market import Market
from hardsite.things import Answer


def _handler(market: Market) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real server's: a page's fetches share connections

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._answer(market.get(self.path, self.headers.get("Cookie", "")))

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
            self._answer(market.post(self.path, body, self.headers.get("Cookie", "")))

        def _answer(self, answer: Answer) -> None:
            self.send_response(answer.status)
            for key, value in {"Content-Type": "text/plain; charset=utf-8", **answer.headers}.items():
                for one in value.split("\n"):  # Set-Cookie may carry several, one header each
                    self.send_header(key, one)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            try:
                self.wfile.write(answer.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser closed before the answer came

    return Handler


def serve_market(market: Market) -> tuple[str, Callable[[], None]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(market))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}", stop


@dataclass
class MarketSite:
    market: Market
    url: str

    def page(self, path: str) -> str:
        return self.url + path


@pytest.fixture
def market_site() -> Iterator[MarketSite]:
    market = Market()
    url, stop = serve_market(market)
    try:
        yield MarketSite(market, url)
    finally:
        stop()

"""An endpoint that drips its answers — a byte every second, so no single read ever waits out a
timeout — must not keep goalbot waiting: every request to an endpoint is bounded in total, and
the person is told in one line, with no traceback."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kit import run_cli

DRIP_EVERY_S = 1.0  # far under any per-read timeout: a per-read bound alone never fires


class DripServer:
    """An OpenAI-compatible address on 127.0.0.1 that answers everything a byte at a time, for
    as long as the client listens: in its status line (`headers`) or in its body (`body`)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.stopped = threading.Event()
        self.asked: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> DripServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stopped.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        drip = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._drip(json.dumps({"object": "list", "data": [{"id": "scripted"}]}).encode())

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._drip(json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())

            def _drip(self, body: bytes) -> None:
                drip.asked.append(self.path)
                head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b"Content-Length: %d\r\n\r\n" % (len(body) * 1000))
                if drip.where == "body":
                    self.wfile.write(head)
                    self.wfile.flush()
                    head = b""
                for byte in (head + body * 1000):
                    if drip.stopped.wait(DRIP_EVERY_S):
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return  # the client hung up: what it should do

        return Handler


def _timed(*args: str, within: float) -> tuple[object, float]:
    started = time.monotonic()
    result = run_cli(*args, timeout=within + 60)
    took = time.monotonic() - started
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert took < within, f"goalbot {args[2]} waited {took:.0f} s on a dripping endpoint"
    return result, took


@pytest.mark.parametrize(("where", "timeout"), [("headers", []), ("body", []), ("body", ["--model-timeout", "5"]),
                                               ("body", ["--model-timeout", "20"])],
                         ids=["headers-default", "body-default", "body-timeout-5", "body-timeout-20"])
def test_doctor_is_not_kept_waiting_by_a_dripping_model_list(db_path: Path, where: str, timeout: list[str]) -> None:
    with DripServer(where) as server:
        result, _ = _timed("--db", str(db_path), "doctor", "--base-url", server.base_url, "--model", "scripted",
                           *timeout, within=30)
    assert result.returncode == 1, result.stdout
    said = [line for line in result.stdout.splitlines() if line.startswith("FAIL  model:")]
    assert said and "did not send its model list whole within" in said[0], result.stdout


@pytest.mark.parametrize(("where", "timeout"), [("headers", []), ("body", ["--model-timeout", "5"])],
                         ids=["headers-default", "body-timeout-5"])
def test_eval_is_not_kept_waiting_by_a_dripping_endpoint(db_path: Path, where: str, timeout: list[str]) -> None:
    with DripServer(where) as server:
        result, _ = _timed("--db", str(db_path), "eval", "--tasks", "demo-signin", "--base-url", server.base_url,
                           "--model", "scripted", *timeout, within=30)
    assert result.returncode == 2, result.stderr
    assert "did not send its model list whole within" in result.stderr, result.stderr


class ListsThenDrips(DripServer):
    """Lists its models at once, as a healthy server does, then drips every chat answer."""

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base = super()._handler()

        class Handler(base):  # type: ignore[valid-type, misc]
            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "scripted"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def test_a_run_whose_chat_answers_drip_ends_within_its_bound(hardsite, db_path: Path) -> None:
    # Each attempt is bounded by --model-timeout however the body trickles; the retries and their
    # waits are bounded by --model-retries: two attempts of 3 s, and a wait of a few seconds.
    with ListsThenDrips("body") as server:
        result, took = _timed("--db", str(db_path), "run", "look at the page", "--url", hardsite.page("lookup"),
                              "--no-tui", "--yes", "--base-url", server.base_url, "--model", "scripted",
                              "--model-timeout", "3", "--model-retries", "1", within=40)
        chats = [path for path in server.asked if path.endswith("/chat/completions")]
    assert result.returncode != 0
    assert "did not answer within 3s" in result.stderr + result.stdout, result.stderr
    assert 1 <= len(chats) <= 2, chats

"""What is wrong with the model endpoint or the display is said in the first second, in its own
words, before any browser starts: not after the browser, and not as the model's or Chromium's fault."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from kit import rows, run_cli


class _WebSite(BaseHTTPRequestHandler):
    """A web server where the person meant to give a model endpoint (`--base-url http://host:8000`)."""

    def _page(self) -> None:
        body = b"<!doctype html><title>Not Found</title><h1>404</h1>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page

    def log_message(self, *args: object) -> None:
        pass


class _KeyRequired(_WebSite):
    def _page(self) -> None:
        body = b'{"error": {"message": "missing API key"}}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page


class _ChatOnly(BaseHTTPRequestHandler):
    """A home-made endpoint with chat completions only: its GET /models is http.server's own
    HTML error page, yet it is an API."""

    def do_POST(self) -> None:
        body = b'{"error": {"message": "messages is required"}}'
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def web_site() -> Iterator[str]:
    yield from _serve(_WebSite)


@pytest.fixture
def key_required() -> Iterator[str]:
    yield from _serve(_KeyRequired)


@pytest.fixture
def chat_only() -> Iterator[str]:
    yield from _serve(_ChatOnly)


def test_an_api_without_a_model_list_is_not_taken_for_a_web_page(chat_only: str, web_site: str) -> None:
    from goalbot.llm.probe import probe_endpoint

    api = probe_endpoint(f"{chat_only}/v1", "", ["m"])
    assert api.usable and "lists no models (HTTP 501)" in (api.first("warn") or "")
    page = probe_endpoint(web_site, "", ["m"])
    assert not page.usable and "web page" in (page.first("fail") or "")


def _dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens here once the probe closes


def _refused_before_the_browser(result, db_path: Path, says: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and says in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    # No session began: nothing was launched, asked or stored on the strength of a bad endpoint.
    assert not db_path.exists() or rows(db_path, "select count(*) as n from sessions")[0]["n"] == 0


def test_an_endpoint_that_serves_web_pages_is_named_as_such(web_site: str, db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--base-url", web_site, "--model", "gpt-4o")
    _refused_before_the_browser(result, db_path, "answers with a web page (HTTP 404), not an OpenAI-compatible API")
    assert "gpt-4o" not in result.stderr  # the model's name is not what is wrong


def test_an_unreachable_endpoint_is_said_before_the_browser_starts(db_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{_dead_port()}/v1"
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--base-url", endpoint, "--model", "x")
    _refused_before_the_browser(result, db_path, f"cannot reach the model endpoint {endpoint}")
    assert "nothing listened there for 10 s" in result.stderr  # it was given the time a fresh server needs


def test_a_missing_key_is_said_as_a_missing_key(key_required: str, db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--base-url", f"{key_required}/v1", env={"OPENAI_API_KEY": ""})
    _refused_before_the_browser(result, db_path, "(HTTP 401): no API key is set (--api-key or OPENAI_API_KEY)")


def test_doctor_takes_the_model_flags_and_fails_on_an_unusable_endpoint(web_site: str, model_server,
                                                                        tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "g.db")]
    bad = run_cli(*db, "doctor", "--base-url", web_site)
    assert bad.returncode == 1 and "FAIL  model:" in bad.stdout and "web page" in bad.stdout
    unlisted = run_cli(*db, "doctor", "--base-url", model_server({}).base_url, "--model", "gpt-5")
    assert unlisted.returncode == 0, unlisted.stdout  # a list can be partial: a warning, not a failure
    assert "warn  model: the endpoint does not list the model 'gpt-5' (it lists scripted)" in unlisted.stdout
    # A local server lists its model by the file it loaded: a name inside one listed name is offered it.
    inside = run_cli(*db, "doctor", "--base-url", model_server({}).base_url, "--model", "SCRIPT")
    assert "(it lists scripted); pass --model 'scripted'" in inside.stdout, inside.stdout


def test_a_dead_display_is_named_not_chromium(model_server, db_path: Path) -> None:
    dead = {"DISPLAY": ":87"}  # no X server on 87 (the tests' Xvfb take other numbers)
    assert not Path("/tmp/.X11-unix/X87").exists()
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--base-url", model_server({}).base_url, env=dead)
    _refused_before_the_browser(result, db_path, "no X server answers on DISPLAY=:87")
    assert "Chromium" not in result.stderr and "--headless" in result.stderr
    doctor = run_cli("--db", str(db_path), "doctor", env=dead)
    assert "warn  display: no X server answers on DISPLAY=:87" in doctor.stdout
    observed = run_cli("observe", "data:text/html,hi", "--allow-scheme", "data", env=dead)
    assert observed.returncode != 0 and "no X server answers on DISPLAY=:87" in observed.stderr
    assert "Install Chromium" not in observed.stderr


DOORS = {
    "run": ["run", "sign in and turn on dark mode", "--url", "{site}/login", "--no-tui", "--yes"],
    "batch": ["batch", "{jobs}"],
    "eval": ["eval", "--tasks", "demo-signin", "--episodes", "1"],
}


@pytest.mark.parametrize("door", DOORS)
def test_a_model_on_this_machine_that_starts_a_moment_later_is_waited_for(
        door: str, site, db_path: Path, tmp_path: Path) -> None:
    """`goalbot demo --serve-only &` and a run, a batch or an eval pasted right after it: each
    waits for the model to listen instead of being refused in the first millisecond."""
    from goalbot.scripted.server import Script, ScriptedModelServer

    port = _dead_port()
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(f'{{"goal": "sign in and turn on dark mode", "url": "{site.url}/login"}}\n', encoding="utf-8")
    script = Script.demo()
    servers: list[ScriptedModelServer] = []
    later = threading.Timer(1.5, lambda: servers.append(ScriptedModelServer(script, port).start()))
    later.start()
    try:
        args = [arg.format(site=site.url, jobs=jobs) for arg in DOORS[door]]
        result = run_cli("--db", str(db_path), *args, "--base-url", f"http://127.0.0.1:{port}/v1",
                         "--model", "scripted-demo", timeout=240)
    finally:
        later.join()
        for server in servers:
            server.stop()
    assert result.returncode == 0, result.stderr
    assert "cannot reach" not in result.stderr and "Traceback" not in result.stderr, result.stderr

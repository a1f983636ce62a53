"""Real parts for every test: the demo site and a scripted model server on 127.0.0.1, a real
Chromium, a real SQLite file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

import pytest

from goalbot import actions as A
from goalbot.demo.site import DemoSite
from goalbot.operators.browser import BrowserOperator
from hardsite.server import HardSite
from goalbot.operators.browser_locate import find_browser, playwright_chromium
from goalbot.scripted.server import Script, ScriptedModelServer

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _browser_available() -> None:
    choice = find_browser()
    if choice.path is None and playwright_chromium() is None:
        pytest.exit("no Chromium: run `make test` (it installs one) or apt-get install chromium", 2)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's own config, store or key must never leak into a test, nor the test into them.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GOALBOT_MODEL", "GOALBOT_DB", "DISPLAY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def site() -> Iterator[DemoSite]:
    with DemoSite() as running:
        yield running


@pytest.fixture(scope="session")
def hardsite() -> Iterator[HardSite]:
    with HardSite() as running:
        yield running


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserOperator]:
    """A headless Chromium on a blank tab; downloads go to the test's own directory."""
    operator = BrowserOperator(download_dir=tmp_path / "downloads")
    await operator.start(None)
    yield operator
    await operator.close()


async def open_page(browser: BrowserOperator, url: str) -> str:
    assert (await browser.execute(A.Navigate(url=url))).ok
    return (await browser.observe()).render()


def demo_script() -> dict[str, Any]:
    return json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))


@pytest.fixture
def model_server() -> Iterator[Callable[[dict[str, Any]], ScriptedModelServer]]:
    started: list[ScriptedModelServer] = []

    def start(script: dict[str, Any]) -> ScriptedModelServer:
        server = ScriptedModelServer(Script(script)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "goalbot.db"


@contextmanager
def xvfb(size: str = "1366x900x24") -> Iterator[str]:
    """A real X display of its own; yields its DISPLAY name."""
    number = 90 + (os.getpid() + len(size)) % 9
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", size, "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = f"/tmp/.X11-unix/X{number}"
    deadline = time.monotonic() + 10
    while not os.path.exists(socket) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goalbot", *args],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})}, cwd=REPO,
    )


def wait_until(condition: Callable[[], object], seconds: float = 60, what: str = "the condition") -> None:
    """Polls `condition` until it is true or `seconds` pass. A store that does not exist yet, or
    has no tables yet, is "not yet", never an error."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except sqlite3.Error:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {seconds:g} s")


def rows(db_path: Path, sql: str, *params: object) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def answer(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(calls)}


def stored_events(db_path: Path) -> list[dict[str, Any]]:
    """Every stored event in order, as `{type, actor, step, **data}`."""
    return [{"type": r["type"], "actor": r["actor"], "step": r["step"], **json.loads(r["data"])}
            for r in rows(db_path, "select type, actor, step, data from events order by session_id, seq")]


def run_goal(
    db_path: Path, model: ScriptedModelServer, url: str, goal: str, *flags: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`goalbot run GOAL --no-tui --yes` against the scripted model (later flags win), and what
    it stored. Whatever happens, the person never sees a traceback."""
    result = run_cli("--db", str(db_path), "run", goal, "--url", url, "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted", *flags)
    assert "Traceback" not in result.stderr, result.stderr
    return result, stored_events(db_path)

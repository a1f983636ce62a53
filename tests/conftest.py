"""Fixtures: real parts for every test — the demo site and a scripted model server on 127.0.0.1,
a real Chromium, a real SQLite file. Helpers the tests share are in kit.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

import pytest

from goalbot.demo.site import DemoSite
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite
from goalbot.operators.browser.locate import find_browser, playwright_chromium
from goalbot.scripted.server import Script, ScriptedModelServer


@pytest.fixture(scope="session")
def chromium() -> None:
    """Tests that drive a browser ask for this (through `site`, `hardsite` or `browser`); unit
    tests do not, and run on a machine without one."""
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
    # The dashboard takes its theme from the terminal's colours: tests draw as on a full-colour
    # terminal whatever TERM the machine has, and a test of fewer colours says so itself.
    monkeypatch.setenv("COLORTERM", "truecolor")


@pytest.fixture
def site(chromium: None) -> Iterator[DemoSite]:
    with DemoSite() as running:
        yield running


@pytest.fixture(scope="session")
def hardsite(chromium: None) -> Iterator[HardSite]:
    with HardSite() as running:
        yield running


@pytest.fixture
async def browser(tmp_path: Path, chromium: None) -> AsyncIterator[BrowserOperator]:
    """A headless Chromium on a blank tab; downloads go to the test's own directory."""
    operator = BrowserOperator(download_dir=tmp_path / "downloads")
    await operator.start(None)
    yield operator
    await operator.close()


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
    folder = tmp_path / "store"
    folder.mkdir(exist_ok=True)  # a store is made in a folder that exists; only the default one's is made
    return folder / "goalbot.db"

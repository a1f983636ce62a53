"""A headed browser window on a real X display (Xvfb), as on a desktop."""

from __future__ import annotations

import shutil
from typing import Iterator

import pytest

from kit import demo_script, rows, run_cli, xvfb

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")


@pytest.fixture
def display() -> Iterator[str]:
    with xvfb() as name:
        yield name


def test_run_opens_a_browser_window_when_there_is_a_display(site, model_server, db_path, display) -> None:
    model = model_server(demo_script())
    result = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url",
                     f"{site.url}/login", "--no-tui", "--yes", "--base-url", model.base_url,
                     "--model", "scripted", env={"DISPLAY": display})
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"

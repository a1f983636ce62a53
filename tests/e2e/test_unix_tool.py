"""Every printing command behaves like a Unix tool: a reader that goes away (`| head`) ends it
quietly, with what a shell reports for SIGPIPE, and a run whose printout nobody reads still
reaches its end and its store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, demo_script, rows, store_with_sessions

READER_LEFT = 141


def with_reader_gone(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    """`goalbot ARGS | head -0`, made certain: the pipe's reading end is closed before goalbot writes."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "goalbot", "--db", str(db), *args], stdout=write_end, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, timeout=120, cwd=REPO,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", [
    ("sessions", "--plain"), ("tail", "-n", "500"), ("tail", "--json"), ("report",), ("recipe", "list"),
])
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "goalbot.db"
    store_with_sessions(db)
    result = with_reader_gone(*args, db=db)
    assert result.returncode == READER_LEFT, result.stderr
    assert result.stderr == ""


def test_help_to_a_reader_that_went_away_says_nothing(tmp_path: Path) -> None:
    result = with_reader_gone("run", "--help", db=tmp_path / "goalbot.db")
    assert result.returncode in (0, READER_LEFT) and result.stderr == ""


def test_a_run_whose_printout_nobody_reads_still_ends_and_is_stored(site, model_server, tmp_path: Path) -> None:
    db = tmp_path / "goalbot.db"
    model = model_server(demo_script())
    result = with_reader_gone("run", "sign in and turn on dark mode", "--url", f"{site.url}/login", "--no-tui",
                              "--yes", "--headless", "--base-url", model.base_url, "--model", "scripted", db=db)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    assert [r["status"] for r in rows(db, "select status from sessions")] == ["ok"]

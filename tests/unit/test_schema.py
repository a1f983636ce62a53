"""The store's schema has a version (`PRAGMA user_version`) and ordered migrations: a store made
before versions existed (kept as a fixture file) is brought up to date with nothing lost, and a
store from a newer goalbot is refused rather than damaged."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from kit import REPO, rows, run_cli
from storage.db import StoreError, connect
from storage.schema import MIGRATIONS

BEFORE_VERSIONS = REPO / "tests" / "fixtures" / "store-before-versions.db"
SESSION = "20261121-162334-b0d1"


@pytest.fixture
def old_store(db_path: Path) -> Path:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(BEFORE_VERSIONS, db_path)
    return db_path


def test_a_store_made_before_versions_is_migrated_with_nothing_lost(old_store: Path) -> None:
    assert rows(old_store, "pragma user_version")[0][0] == 0
    connect(old_store).close()
    assert rows(old_store, "pragma user_version")[0][0] == len(MIGRATIONS)
    listing = run_cli("--db", str(old_store), "sessions", "--plain")
    assert SESSION in listing.stdout and " ok " in listing.stdout
    events = [json.loads(line) for line in run_cli("--db", str(old_store), "tail", "--json").stdout.splitlines()]
    assert [e["type"] for e in events] == ["TASK_START", "PLAN_PROPOSED", "STEP_START", "LLM_CALL", "STEP_OK", "TASK_OK"]
    report = run_cli("--db", str(old_store), "report", SESSION)
    assert report.returncode == 0 and "dark mode is on" in report.stdout
    assert rows(old_store, "select length(content) as n from artifacts")[0]["n"] > 0


def test_reading_an_old_store_does_not_change_it(old_store: Path) -> None:
    before = old_store.read_bytes()
    assert run_cli("--db", str(old_store), "sessions", "--plain").returncode == 0
    assert old_store.read_bytes() == before


def test_a_store_from_a_newer_goalbot_is_refused(db_path: Path) -> None:
    connect(db_path).close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"pragma user_version = {len(MIGRATIONS) + 7}")
    with pytest.raises(StoreError, match="newer goalbot"):
        connect(db_path)
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes")
    assert result.returncode == 2 and "newer goalbot" in result.stderr and "Traceback" not in result.stderr

"""Every listing a script would read has `--json`: one document on stdout that `json.loads` takes,
holding what the plain listing shows, and whole (a long goal is never cut)."""

from __future__ import annotations

import json
from pathlib import Path

from dashboard_kit import store_fixture
from kit import run_cli

LONG_GOAL = "open the quarterly report, read every region's total and write them into the summary sheet"


def _json(*args: str) -> object:
    done = run_cli(*args)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_sessions_report_and_recipes_as_json(db_path: Path) -> None:
    session = store_fixture(db_path, "demo")
    listed = _json("--db", str(db_path), "sessions", "--json")
    assert isinstance(listed, list) and [row["id"] for row in listed] == [session]
    assert listed[0]["status"] == "ok" and listed[0]["goal"] and listed[0]["tokens"] >= 0
    report = _json("--db", str(db_path), "report", session, "--json")
    assert isinstance(report, dict) and report["session"] == session and report["report"].startswith("#")
    assert _json("--db", str(db_path), "recipe", "list", "--json") == []
    saved = run_cli("--db", str(db_path), "recipe", "save", session, "darkmode")
    assert saved.returncode == 0, saved.stderr
    recipes = _json("--db", str(db_path), "recipe", "list", "--json")
    assert isinstance(recipes, list) and recipes[0]["name"] == "darkmode" and recipes[0]["version"] == 1
    assert _json("--db", str(db_path), "profile", "list", "--json") == []


def test_the_plain_list_keeps_a_long_goal_whole(db_path: Path) -> None:
    session = store_fixture(db_path, "demo")
    import sqlite3

    with sqlite3.connect(db_path) as db:
        db.execute("update sessions set goal = ? where id = ?", (LONG_GOAL, session))
    listing = run_cli("--db", str(db_path), "sessions", "--plain").stdout
    assert LONG_GOAL in listing, listing


def test_doctor_as_json(model_server, db_path: Path) -> None:
    model = model_server({"server": {"models": ["scripted"]}})
    found = _json("--db", str(db_path), "doctor", "--json", "--base-url", model.base_url, "--model", "scripted")
    assert isinstance(found, dict) and found["usable"] is True
    assert {check["what"] for check in found["checks"]} == {"browser", "store", "model", "display"}
    assert any(check["text"] == "the endpoint serves scripted" for check in found["checks"])


def test_observe_as_json(site, db_path: Path) -> None:
    seen = _json("observe", f"{site.url}/login", "--json")
    assert isinstance(seen, dict) and seen["url"].endswith("/login")
    assert "Sign in" in seen["observation"]
    assert any(element["name"] == "Sign in" and element["role"] == "button" for element in seen["elements"])

"""Who watches a run decides what it keeps, the same at every door (`goalbot.service.runs`): a goal
typed in the dashboard keeps the screenshots of its looks; a batch job with `--ask` keeps them for
the person who attaches, one without keeps none; a batch asks the endpoint once, not once a job.
Real Chromium, the test site, the scripted model over HTTP, the real Textual app (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dashboard_kit import on_top, until
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import finished, plan, rows, run_cli, verdict
from tui.app import GoalbotApp
from tui.starting import goal_starter


def _reading(runs: int) -> dict[str, Any]:
    return {"planner": [plan("Read the page's heading")] * runs,
            "navigator": [finished(summary="read it")] * runs,
            "validator": [verdict(True, "read")] * runs}


def _pictures(db_path: Path, session: str | None = None) -> int:
    where, args = ("and session_id = ?", [session]) if session else ("", [])
    return rows(db_path, f"select count(*) n from artifacts where kind = 'screenshot' {where}", *args)[0]["n"]


async def test_a_goal_typed_in_the_dashboard_keeps_the_screenshots_of_its_looks(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server(_reading(1))
    settings = load_settings({"base_url": model.base_url, "model": "scripted", "db": str(db_path)})
    app = GoalbotApp(db_path=db_path, starter=goal_starter(settings, db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press(*f"read the heading at {hardsite.page('darkmode')}", "enter")
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        await pilot.press("a")
        await until(pilot, lambda: app.result is not None, "the run to end", seconds=90)
    looks = rows(db_path, "select count(*) n from events where type = 'OBSERVATION'")[0]["n"]
    assert looks >= 1 and _pictures(db_path) >= looks, (looks, _pictures(db_path))


def _batch(db_path: Path, tmp_path: Path, model: Any, url: str, jobs: int, *flags: str) -> list[dict[str, Any]]:
    path = tmp_path / "jobs.jsonl"
    path.write_text("".join(json.dumps({"goal": f"read the heading ({n})", "url": url}) + "\n" for n in range(jobs)))
    result = run_cli("--db", str(db_path), "batch", str(path), "--base-url", model.base_url, "--model", "scripted",
                     "--workers", "1", "--json", *flags, timeout=300)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_a_batch_asks_the_endpoint_once_and_keeps_pictures_only_for_a_person_who_attaches(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    model = model_server(_reading(3))
    _batch(db_path, tmp_path, model, hardsite.page("darkmode"), 3)
    assert model.model_lists == 1, model.model_lists  # once for the batch, not once a job
    assert _pictures(db_path) == 0  # nobody watches: the settings keep no replay pictures

    asked = tmp_path / "asked.db"
    model = model_server(_reading(1))
    _batch(asked, tmp_path, model, hardsite.page("darkmode"), 1, "--ask")
    session = rows(asked, "select id from sessions")[0]["id"]
    looks = rows(asked, "select count(*) n from events where type = 'OBSERVATION'")[0]["n"]
    assert looks >= 1 and _pictures(asked, session) >= looks, (looks, _pictures(asked, session))

"""A goal finds its recipe: recorded as "put Blue Kettle in the cart", the goal "add the Copper
Teapot to my basket" reruns it with the new value and no model (the endpoint is a dead port), at
the command line, in the dashboard (its plan dialog says so), over MCP and as a batch job; a goal
that only looks alike ("remove …") is planned as ever, and so is any goal under --no-recipes.
Real Chromium, the test site, the scripted model over HTTP for the recording."""

from __future__ import annotations

import json
from pathlib import Path

from dashboard_kit import on_top, until
from flows_kit import cart_script
from goalbot.mcp.runs import HostRules
from goalbot.mcp.server import build_server
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import rows, run_cli, run_goal
from mcp import Client
from tui.app import GoalbotApp
from tui.starting import goal_starter

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
FOUND = "from recipe cart v1, PRODUCT = Copper Teapot"


def _record(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    result, _ = run_goal(db_path, model_server(cart_script()), hardsite.page("catalogue"), "put Blue Kettle in the cart",
                         "--save-recipe", "cart", "--var", "PRODUCT=Blue Kettle")
    assert result.returncode == 0, result.stderr


def _run(db_path: Path, goal: str, url: str, *flags: str):  # type: ignore[no-untyped-def]
    return run_cli("--db", str(db_path), "run", goal, "--url", url, "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                   "--model", "scripted", *flags)


def _latest(db_path: Path) -> tuple[str, list[dict[str, object]]]:
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}"))
              for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]
    return session, events


def test_a_goal_in_other_words_reruns_its_recipe_and_a_look_alike_goal_does_not(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    catalogue = hardsite.page("catalogue")
    hardsite.reset()
    found = _run(db_path, "add the Copper Teapot to my basket", catalogue)
    assert found.returncode == 0, found.stderr
    assert f"goalbot: {FOUND}: it reruns with no model" in found.stderr, found.stderr
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']
    session, events = _latest(db_path)
    assert rows(db_path, "select model_calls, goal from sessions where id = ?", session)[0]["model_calls"] == 0
    proposed = next(e for e in events if e["type"] == "PLAN_PROPOSED")
    assert proposed["reasoning"] == FOUND
    approved = next(e for e in events if e["type"] == "PLAN_APPROVED")
    assert approved["by"] == "--yes"
    report = run_cli("--db", str(db_path), "report", session).stdout
    assert f"- Input recipe: cart v1\n- Found by the goal typed, {FOUND}" in report, report

    for goal, flags in (("remove Blue Kettle from the cart", ()), ("add the Copper Teapot to my basket",
                                                                    ("--no-recipes",))):
        hardsite.reset()
        planned = _run(db_path, goal, catalogue, *flags)
        assert planned.returncode != 0 and "from recipe" not in planned.stderr, planned.stderr
        assert "cannot reach the model endpoint" in planned.stderr, planned.stderr
        assert hardsite.reached("/api/cart", "POST") == []
    # Another site's start page is not the recipe's: planned, not rerun there.
    elsewhere = _run(db_path, "add the Copper Teapot to my basket", f"{hardsite.other}/catalogue.html")
    assert "from recipe" not in elsewhere.stderr and elsewhere.returncode != 0


def test_a_korean_goal_finds_the_recipe_recorded_in_english(hardsite: HardSite, model_server, db_path: Path) -> None:
    # The people who asked for goalbot write Korean: particles on the value, the verb's ending.
    _record(hardsite, model_server, db_path)
    catalogue = hardsite.page("catalogue")
    hardsite.reset()
    found = _run(db_path, "Copper Teapot을 장바구니에 담아줘", catalogue)
    assert found.returncode == 0, found.stderr
    assert f"goalbot: {FOUND}: it reruns with no model" in found.stderr, found.stderr
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']
    hardsite.reset()
    opposite = _run(db_path, "장바구니에서 Blue Kettle 빼줘", catalogue)
    assert opposite.returncode != 0 and "from recipe" not in opposite.stderr, opposite.stderr
    assert hardsite.reached("/api/cart", "POST") == []


async def test_mcp_run_goal_and_a_batch_goal_job_find_it_too(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    hardsite.reset()
    settings = load_settings({"base_url": DEAD_ENDPOINT, "model": "scripted", "db": str(db_path)})
    async with Client(build_server(settings, db_path, HostRules(approve_plans=True))) as client:
        result = await client.call_tool("run_goal", {"goal": "put the Copper Teapot in the cart",
                                                     "url": hardsite.page("catalogue"), "wait": True})
    assert not result.is_error, result.content
    assert result.structured_content["status"] == "ok", result.structured_content
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']

    hardsite.reset()
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"goal": "add the Green Mug to the cart", "url": hardsite.page("catalogue")}) + "\n")
    batch = run_cli("--db", str(db_path), "batch", str(jobs), "--json", "--workers", "1", "--base-url", DEAD_ENDPOINT,
                    "--model", "scripted")
    assert batch.returncode == 0, batch.stderr
    ended = [json.loads(line) for line in batch.stdout.splitlines() if line.startswith("{")]
    assert [job["status"] for job in ended] == ["ok"], ended
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Green Mug"}']


async def test_the_dashboards_plan_dialog_says_which_recipe_the_typed_goal_found(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    hardsite.reset()
    settings = load_settings({"base_url": DEAD_ENDPOINT, "model": "scripted", "db": str(db_path)})
    app = GoalbotApp(db_path=db_path, starter=goal_starter(settings, db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press(*f"add the Copper Teapot to my basket at {hardsite.page('catalogue')}", "enter")
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        title = str(app.screen.query_one("#review-title").render())
        assert FOUND in title, title
        await pilot.press("a")
        await until(pilot, lambda: app.result is not None, "the rerun to end")
        assert app.result.status.value == "ok", app.result
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']

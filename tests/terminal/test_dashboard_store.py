"""The sessions screen and the replay screen, on sessions stored by real runs."""

from __future__ import annotations

import json
from pathlib import Path

from kit import demo_script, rows, run_goal
from dashboard_kit import GOAL, dashboard_app, log_rows, on_top, screen_text, text, until
from goalbot.agents.control import SessionControl
from tui.app import GoalbotApp
from tui.images import prepare_images


def _session_ids(db_path: Path) -> list[str]:
    return [r["id"] for r in rows(db_path, "select id from sessions order by started_at")]


async def test_replay_draws_the_same_plan_steps_and_verdicts_as_the_live_run(site, model_server, db_path: Path) -> None:
    prepare_images("halfcell")
    app, recorder = dashboard_app(f"{site.url}/login", GOAL, model_server(demo_script()), db_path,
                                  SessionControl(auto_approve=True))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, lambda: app.result is not None, "the live run to end")
            await pilot.pause(0.3)
            live_plan, live_status = text(app, "#plan"), text(app, "#status")
            live_log = log_rows(app.run_screen)
            await pilot.press("q")
    finally:
        recorder.close()
    session_id = _session_ids(db_path)[0]

    replay = GoalbotApp(db_path=db_path, session_id=session_id, opening="replay")
    async with replay.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(replay, "ReplayScreen") and replay.screen.ready, "the replay")
        screen = replay.screen
        await pilot.press("end")  # it opens where the story starts: the whole of it is at the end
        assert screen_text(replay, "#plan") == live_plan
        assert screen_text(replay, "#status") == live_status
        assert log_rows(screen) == live_log
        assert "Settings · Acme Account" in screen_text(replay, "#screenshot-caption")

        await pilot.press("home")  # before the first event: nothing drawn
        assert screen.position == 0 and log_rows(screen) == []
        await pilot.press("n")  # step by step: the first step is running
        assert screen.board.state.step == 1 and "▶ 1." in screen_text(replay, "#plan")
        await pilot.pause(0.3)
        assert "Sign in" in screen_text(replay, "#screenshot-caption")  # the screen of that moment
        await pilot.press("n")
        assert screen.board.state.step == 2 and "✔ 1." in screen_text(replay, "#plan")
        await pilot.press("b")
        assert screen.board.state.step == 1 and "▶ 1." in screen_text(replay, "#plan")
        before = screen.position
        await pilot.press("right", "right", "left")
        assert screen.position == before + 1

        await pilot.press("g")
        await until(pilot, lambda: on_top(replay, "JumpScreen"), "the jump box")
        await pilot.press("2", "enter")
        await pilot.pause(0.1)
        assert screen.board.state.step == 2 and "step 2" in screen_text(replay, "#replay-head")

        for _ in range(6):
            await pilot.press("plus")
        assert "64×" in screen_text(replay, "#replay-head")
        await pilot.press("space")  # play to the end at 64×
        await until(pilot, lambda: screen.position == len(screen.events), "the end of the replay")
        assert "paused" in screen_text(replay, "#replay-head")
        assert screen_text(replay, "#plan") == live_plan and log_rows(screen) == live_log


async def test_sessions_filter_export_open_and_delete(site, model_server, db_path: Path, tmp_path: Path) -> None:
    model = model_server(demo_script())
    run_goal(db_path, model, f"{site.url}/login", GOAL)
    run_goal(db_path, model_server({"planner": [], "navigator": [], "validator": []}), f"{site.url}/login",
             "look at the weather", "--max-failures", "1", "--model-retries", "0")
    done, failed = _session_ids(db_path)
    assert [r["status"] for r in rows(db_path, "select status from sessions order by started_at")] == ["ok", "failed"]

    exports = tmp_path / "exports"
    app = GoalbotApp(db_path=db_path, opening="sessions", export_dir=exports)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen"), "the sessions screen")
        screen = app.screen

        async def shows(*ids: str) -> None:
            await until(pilot, lambda: set(screen.rows) == set(ids), f"the sessions {ids}")

        await shows(done, failed)
        await pilot.press("f", "f")  # all → running → ok
        await shows(done)
        assert "status: ok" in screen_text(app, "#sessions-status")
        await pilot.press("f")  # failed
        await shows(failed)
        await pilot.press("f", "f", "f")  # cancelled, interrupted, back to all
        await shows(done, failed)
        await pilot.press("slash", *"weather", "enter")
        await shows(failed)
        await pilot.press("slash", "ctrl+u", *"dark", "enter")
        await shows(done)

        await pilot.press("x")
        jsonl, markdown = exports / f"goalbot-{done}.jsonl", exports / f"goalbot-{done}.md"
        await until(pilot, lambda: jsonl.exists() and markdown.exists(), "the export")
        lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
        assert [e["seq"] for e in lines] == list(range(1, len(lines) + 1))
        assert len(lines) == rows(db_path, "select count(*) as n from events where session_id = ?", done)[0]["n"]
        assert lines[0]["type"] == "TASK_START" and lines[-1]["type"] == "TASK_OK"
        assert GOAL in markdown.read_text() and "dark mode" in markdown.read_text()

        await pilot.press("enter")  # open: a finished session is replayed
        await until(pilot, lambda: on_top(app, "ReplayScreen"), "the replay")
        assert app.screen.session_id == done
        await pilot.press("escape")
        await until(pilot, lambda: on_top(app, "SessionsScreen"), "back to the sessions")

        await pilot.press("slash", "ctrl+u", "enter", "d")
        await until(pilot, lambda: on_top(app, "ConsentScreen"), "the delete question")
        await pilot.press("n")  # not deleted
        await until(pilot, lambda: on_top(app, "SessionsScreen") and len(app.screen.rows) == 2, "both sessions")
        app.screen.query_one("#sessions-table").move_cursor(row=list(app.screen.rows).index(failed))
        await pilot.press("d")
        await until(pilot, lambda: on_top(app, "ConsentScreen"), "the delete question")
        await pilot.press("y")
        await until(pilot, lambda: on_top(app, "SessionsScreen") and set(app.screen.rows) == {done}, "the deletion")
    assert _session_ids(db_path) == [done]
    for table in ("events", "artifacts"):
        assert rows(db_path, f"select count(*) as n from {table} where session_id = ?", failed)[0]["n"] == 0


async def test_a_run_kept_without_pictures_replays_its_looks_as_their_boxes(site, model_server, db_path: Path) -> None:
    """Nobody watched it (--no-tui): no screenshot was kept, and the replay draws each look from the
    elements' boxes its OBSERVATION events carry."""
    prepare_images("halfcell")
    result, _events = run_goal(db_path, model_server(demo_script()), f"{site.url}/login", GOAL, "--headless")
    assert result.returncode == 0, result.stderr
    assert rows(db_path, "select count(*) as n from artifacts where kind = 'screenshot'")[0]["n"] == 0
    replay = GoalbotApp(db_path=db_path, session_id=_session_ids(db_path)[0], opening="replay")
    async with replay.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(replay, "ReplayScreen") and replay.screen.ready, "the replay")
        await pilot.press("end")
        await until(pilot, lambda: "Settings · Acme Account" in screen_text(replay, "#screenshot-caption"),
                    "the last look drawn")
        assert "1280×" in screen_text(replay, "#screenshot-caption")  # a page of the viewport's width

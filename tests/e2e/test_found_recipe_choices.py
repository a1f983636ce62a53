"""A goal that only may be a stored recipe's costs one matcher call, and the person sees both
choices in the dashboard's plan dialog: approved, the recipe reruns with the values the matcher
bound; turned down, the goal is planned. Under --yes such a goal is planned, the matcher never
asked. A found rerun that stops on a changed page hands the goal to the planner in the same
session, from where it stopped, and the result can be kept as the recipe's next version.
Real Chromium, the test site, the scripted model over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dashboard_kit import on_top, until
from flows_kit import cart_script
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import answer, call, darkmode_script, element, finished, plan, rows, run_cli, run_goal, verdict
from tui.app import GoalbotApp
from tui.starting import goal_starter

UNSURE = "add the Copper Teapot to the cart, gift-wrapped"  # "gift-wrapped" is a second value for one variable
BOUND = "from recipe cart v1, PRODUCT = Copper Teapot — the matcher bound it"


def _record_cart(hardsite: HardSite, model_server, db_path: Path) -> None:  # type: ignore[no-untyped-def]
    hardsite.reset()
    result, _ = run_goal(db_path, model_server(cart_script()), hardsite.page("catalogue"), "put Blue Kettle in the cart",
                         "--save-recipe", "cart", "--var", "PRODUCT=Blue Kettle")
    assert result.returncode == 0, result.stderr


def _matcher(same: bool = True) -> dict[str, object]:
    reason = "the same purchase; gift-wrapped is how, not what" if same else "gift-wrapped asks for a wrapping"
    return answer(call("match", same=same, values={"PRODUCT": "Copper Teapot"} if same else {}, reason=reason))


def _planned_teapot() -> dict[str, Any]:
    """The planned run of the goal: the recording's answers, for the Copper Teapot."""
    planned = cart_script()
    planned["navigator"][0]["tool_calls"][0]["arguments"]["text"] = "Copper Teapot"
    planned["navigator"][1] = answer(call("click", index=element("Copper Teapot")))
    return planned


def _events(db_path: Path) -> tuple[str, list[dict[str, object]]]:
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    return session, [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]


async def _in_dashboard(db_path: Path, base_url: str, goal: str, key: str, *typed: str) -> tuple[str, str]:
    """The goal typed in the dashboard; `key` pressed in its plan dialog: its title and how the run ended."""
    settings = load_settings({"base_url": base_url, "model": "scripted", "db": str(db_path)})
    app = GoalbotApp(db_path=db_path, starter=goal_starter(settings, db_path))
    async with app.run_test(size=(180, 45)) as pilot:
        await pilot.press(*goal, "enter")
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        title = str(app.screen.query_one("#review-title").render())
        await pilot.press(key, *typed)
        if key == "r":  # the planned run's own plan is proposed next
            await until(pilot, lambda: on_top(app, "PlanReviewScreen") and "matcher" not in str(
                app.screen.query_one("#review-title").render()), "the planner's plan")
            await pilot.press("a")
        await until(pilot, lambda: app.result is not None, "the run to end")
        assert app.result is not None
        return title, app.result.status.value


async def test_an_unsure_goal_asks_the_matcher_once_and_the_person_approves_the_recipe(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_cart(hardsite, model_server, db_path)
    hardsite.reset()
    model = model_server({"matcher": [_matcher()]})
    title, status = await _in_dashboard(db_path, model.base_url, f"{UNSURE} at {hardsite.page('catalogue')}", "a")
    assert BOUND in title and "turn it down to plan the goal" in title, title
    assert status == "ok"
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']
    session, events = _events(db_path)
    assert rows(db_path, "select model_calls from sessions where id = ?", session)[0]["model_calls"] == 1
    said = [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == "recipe_found"]
    assert said and said[0].startswith("the matcher bound recipe cart v1, PRODUCT = Copper Teapot"), said


async def test_turned_down_the_goal_is_planned_in_the_same_session(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_cart(hardsite, model_server, db_path)
    hardsite.reset()
    model = model_server({"matcher": [_matcher()], **_planned_teapot()})
    title, status = await _in_dashboard(db_path, model.base_url, f"{UNSURE} at {hardsite.page('catalogue')}",
                                        "r", *"plan it", "enter")
    assert BOUND in title, title
    assert status == "ok"
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']
    _, events = _events(db_path)
    assert [e["type"] for e in events].count("TASK_START") == 1
    rejected = next(e for e in events if e["type"] == "PLAN_REJECTED")
    assert rejected["feedback"] == "plan it"
    said = [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == "recipe_found"]
    assert any(m.startswith("the person turned down recipe cart v1: plan it: the goal is planned instead")
               for m in said), said
    assert [e["reasoning"] for e in events if e["type"] == "PLAN_PROPOSED"][1] != title


async def test_when_the_matcher_says_it_is_another_goal_the_planner_plans_it(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_cart(hardsite, model_server, db_path)
    hardsite.reset()
    model = model_server({"matcher": [_matcher(same=False)], **_planned_teapot()})
    title, status = await _in_dashboard(db_path, model.base_url, f"{UNSURE} at {hardsite.page('catalogue')}", "a")
    assert "from recipe" not in title and status == "ok", title
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']
    _, events = _events(db_path)
    said = [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == "recipe_found"]
    assert said == ["recipe cart v1 may not do the goal: gift-wrapped asks for a wrapping: "
                    "the goal is planned instead, from this page"], said


def test_under_yes_an_unsure_goal_is_planned_and_the_matcher_is_not_asked(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_cart(hardsite, model_server, db_path)
    hardsite.reset()
    model = model_server({"matcher": [_matcher()], "planner": [plan("Tell the person")]})
    result = run_cli("--db", str(db_path), "run", UNSURE, "--url", hardsite.page("catalogue"), "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted")
    assert "from recipe" not in result.stderr and "maybe recipe" not in result.stderr, result.stderr
    assert model.script.remaining()["matcher"] == 1, "the matcher was asked"
    assert hardsite.reached("/api/cart", "POST") == []


def _record_darkmode(hardsite: HardSite, model_server, db_path: Path) -> None:  # type: ignore[no-untyped-def]
    recorded, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                           "sign in and turn on dark mode", "--save-recipe", "darkmode", "--secret", "PW=hunter2",
                           "--var", "user=alice")
    assert recorded.returncode == 0, recorded.stderr
    hardsite.reset()


def _found_on_the_menu_layout(hardsite: HardSite, db_path: Path, model: Any) -> Any:
    """The recorded goal in other words, on the layout whose settings sit behind a menu."""
    return run_cli("--db", str(db_path), "run", "log in and switch on dark mode", "--url",
                   f"{hardsite.page('darkmode')}?variant=menu", "--no-tui", "--yes", "--var", "user=alice",
                   "--secret", "PW=hunter2", "--base-url", model.base_url, "--model", "scripted")


def test_a_found_rerun_that_stops_is_planned_from_where_it_stopped_and_can_be_kept(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_darkmode(hardsite, model_server, db_path)
    # The settings moved behind a menu: no rung finds the switch, and the model's patch names a
    # step the recipe does not have.
    model = model_server({
        "patcher": [answer(call("patch", reason="moved", ops=[{"op": "remove_step", "step": 99}]))],
        "planner": [plan("Open the menu, turn on dark mode and save")],
        "navigator": [answer(call("click", index=element("Menu"))), answer(call("click", index=element("Dark mode"))),
                      answer(call("click", index=element("Save"))), finished(summary="saved")],
        "validator": [verdict(True, "dark mode saved"), verdict(True, "signed in, dark mode on and saved")],
    })
    result = _found_on_the_menu_layout(hardsite, db_path, model)
    assert result.returncode == 0, result.stderr
    assert "recipe darkmode v1 stopped: step 2: TargetNotFound" in result.stderr, result.stderr
    assert "planned instead" in result.stderr, result.stderr
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"alice","dark":true}']
    session, events = _events(db_path)
    assert [e["type"] for e in events].count("TASK_START") == 1
    assert hardsite.reached("/api/signin", "POST") == ['{"user":"alice"}']  # signed in once, by the recipe
    report = run_cli("--db", str(db_path), "report", session).stdout
    assert "recipe darkmode v1 stopped" in report and "the goal is planned instead" in report, report
    assert f"`goalbot recipe save {session} darkmode --var user=…` keeps this run as its next version" in report, report
    kept = run_cli("--db", str(db_path), "recipe", "save", session, "darkmode", "--var", "user=alice")
    assert kept.returncode == 0 and "darkmode v2" in kept.stderr + kept.stdout, kept.stderr
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    assert "Menu" in shown and "hunter2" not in shown, shown


def test_a_found_rerun_that_stops_after_its_patch_keeps_no_patched_version(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record_darkmode(hardsite, model_server, db_path)
    # The patch applies (a click on "Menu", but before Save rather than before the switch), so the
    # rerun stops again at the switch; the planner then does the goal.
    model = model_server({
        "patcher": [answer(call("patch", reason="the settings are behind a menu", ops=[
            {"op": "insert_actions", "before_step": 5, "actions": [{"name": "click", "index": {"$element": "Menu"}}]},
        ]))],
        "planner": [plan("Open the menu, turn on dark mode and save")],
        "navigator": [answer(call("click", index=element("Menu"))), answer(call("click", index=element("Dark mode"))),
                      answer(call("click", index=element("Save"))), finished(summary="saved")],
        "validator": [verdict(True, "dark mode saved"), verdict(True, "signed in, dark mode on and saved")],
    })
    result = _found_on_the_menu_layout(hardsite, db_path, model)
    assert result.returncode == 0, result.stderr
    assert model.script.remaining()["patcher"] == 0, "the patch was never asked for"
    assert "planned instead" in result.stderr, result.stderr
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"alice","dark":true}']
    assert "the patched version is not kept" in result.stderr, result.stderr
    assert "kept as darkmode v2" not in result.stderr, result.stderr
    versions = rows(db_path, "select version from recipe_versions where name = 'darkmode'")
    assert [row["version"] for row in versions] == [1], versions

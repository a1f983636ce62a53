"""Record once with a model, rerun with none: a session kept as a recipe reruns on the same site
with zero model calls, and on a redesigned one (ids and classes renamed, wrappers, fields
reordered, labels reworded, a button moved) it heals from evidence and remembers the heal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dashboard_kit import on_top, screen_text, until
from kit import REPO, answer, call, darkmode_script, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite
from tmux_kit import exit_code, tmux, wait_for
from tui.app import GoalbotApp

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


def _record(hardsite: HardSite, model_server: Any, db_path: Path) -> Any:
    model = model_server(darkmode_script())
    result, _ = run_goal(db_path, model, hardsite.page("darkmode"), "sign in and turn on dark mode",
                         "--save-recipe", "darkmode", "--secret", "PW=hunter2", "--var", "user=alice")
    assert result.returncode == 0, result.stderr
    assert "saved recipe darkmode v1" in result.stderr, result.stderr
    # The line says the whole rerun: what it will ask for is in it.
    assert "goalbot rerun darkmode --var user=… --secret PW=…" in result.stderr, result.stderr
    return model


def _rerun(db_path: Path, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", "darkmode", "--var", "user=bob", "--secret", "PW=s3cret",
                     "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, *flags)
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}"))
              for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]
    return result, events


def _rungs(events: list[dict[str, Any]]) -> list[str]:
    return [e["resolved_by"] for e in events if e["type"] == "ACT_OK"]


def test_a_recorded_run_reruns_with_no_model(hardsite: HardSite, model_server, db_path: Path) -> None:
    model = _record(hardsite, model_server, db_path)
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode")
    assert shown.returncode == 0, shown.stderr
    assert "variables: {{user}}" in shown.stdout and "secrets: PW" in shown.stdout, shown.stdout
    assert 'click button "Sign in"' in shown.stdout and "found by: id='signin'" in shown.stdout, shown.stdout
    # What the first run saw each action do: the sign-in form went away, the page said "Saved".
    assert "expects: the element goes away" in shown.stdout and "expects: page says 'Saved'" in shown.stdout
    calls = len(model.requests)
    hardsite.reset()
    result, events = _rerun(db_path)
    assert result.returncode == 0, result.stderr
    assert len(model.requests) == calls and not [e for e in events if e["type"] == "LLM_CALL"]
    assert hardsite.reached("/api/signin", "POST") == ['{"user":"bob"}']
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"bob","dark":true}']
    assert _rungs(events) == ["cached"] * 5, _rungs(events)
    # Its first line says it runs a recipe with no model; its last, that it ran as recorded.
    assert "(recipe darkmode v1, no model)" in result.stdout and "(model )" not in result.stdout, result.stdout
    assert events[-1]["reason"] == "every step of recipe darkmode v1 ran as recorded", events[-1]
    stored = rows(db_path, "select data from events")
    assert not [r for r in stored if "s3cret" in (r["data"] or "") or "hunter2" in (r["data"] or "")]


def test_a_redesigned_site_is_healed_from_evidence_and_remembered(hardsite: HardSite, model_server,
                                                                   db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    redesigned = f"{hardsite.page('darkmode')}?variant=cosmetic"
    hardsite.reset()
    result, events = _rerun(db_path, "--url", redesigned)
    assert result.returncode == 0, result.stderr
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"bob","dark":true}']
    rungs = _rungs(events)
    # The fields keep their labels (strict); "Log in" and "Save changes" are found by their evidence.
    assert rungs == ["strict", "strict", "refind", "strict", "refind"], rungs
    assert "2 healed elements remembered" in result.stderr
    assert events[-1]["reason"] == ("every step of recipe darkmode v1 ran with 2 elements found again "
                                    "(refind 2)"), events[-1]  # not "as recorded"
    report = run_cli("--db", str(db_path), "report").stdout
    assert "- Input recipe: darkmode v1\n- Output recipe: unchanged" in report and "refind 2" in report, report
    assert 'found by refind as button "Log in" (' in report, report
    assert "2 healed elements remembered: the next rerun finds them by healing memory" in report, report
    again, events = _rerun(db_path, "--url", redesigned)
    assert again.returncode == 0, again.stderr
    assert _rungs(events) == ["strict", "strict", "memory", "strict", "memory"], _rungs(events)
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    # Two reruns, both good, no model; of the four elements needing a heal, memory found two.
    assert "reruns: 2 · succeeded 100% · model calls per run 0.0 · patched 0%" in shown, shown
    assert "healing memory hits 50%" in shown, shown
    # `goalbot stats` says the same for the recipe's reruns, with the rung each element was found by.
    figures = json.loads(run_cli("--db", str(db_path), "stats", "--recipe", "darkmode", "--json").stdout)
    assert figures["rungs"] == {"strict": 0.6, "memory": 0.2, "refind": 0.2}, figures["rungs"]
    assert figures["no_model_share"] == 1.0 and figures["patches_per_rerun"] == 0.0
    words = run_cli("--db", str(db_path), "stats", "--recipe", "darkmode").stdout
    assert "elements found by            strict 60% · memory 20% · refind 20%" in words, words
    assert "healed: now found by" in shown and "(button 'Log in')" in shown, shown  # the heals, not only the old locators


async def test_the_sessions_screen_says_which_recipe_each_session_made_or_reran_and_how_it_goes(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    assert _rerun(db_path)[0].returncode == 0
    recorded, rerun = [r["id"] for r in rows(db_path, "select id from sessions order by started_at")]
    app = GoalbotApp(db_path=db_path, opening="sessions", export_dir=db_path.parent)
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen") and len(app.screen.rows) == 2, "both sessions")
        screen = app.screen
        assert screen.rows[recorded].recipe == "saved darkmode v1" and screen.rows[rerun].recipe == \
            "rerun darkmode v1", screen.rows
        table = screen.query_one("#sessions-table")
        columns = table.ordered_columns
        upto = [column.label.plain for column in columns].index("recipe") + 1
        assert sum(column.get_render_width(table) for column in columns[:upto]) <= table.size.width, \
            "the recipe column is on screen at 160 columns"
        screen.query_one("#sessions-table").move_cursor(row=list(screen.rows).index(rerun))
        await until(pilot, lambda: "reruns: 1 · succeeded 100% · model calls per run 0.0" in
                    screen_text(app, "#sessions-recipe"), "the recipe's figures")


def test_recipes_are_listed_shown_and_deleted_and_bad_input_is_one_line(hardsite: HardSite, model_server,
                                                                        db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    listed = run_cli("--db", str(db_path), "recipe", "list")
    assert listed.returncode == 0 and listed.stdout.startswith("darkmode"), listed
    session = rows(db_path, "select id from sessions")[0]["id"]
    again = run_cli("--db", str(db_path), "recipe", "save", session, "darkmode")
    assert again.returncode == 0 and "darkmode v2" in again.stdout, again
    for args, said in [
        (("recipe", "show", "nothing"), "no recipe nothing"),
        (("recipe", "show", "darkmode", "--version", "9"), "no recipe darkmode v9"),
        (("recipe", "save", session, "bad name!"), "bad recipe name"),
        (("recipe", "save", "no-such-session", "x"), "no session no-such-session"),
        (("rerun", "nothing", "--no-tui", "--yes"), "no recipe nothing"),
        (("rerun", "darkmode", "--version", "1", "--no-tui", "--yes"), "needs --var user="),
        (("rerun", "darkmode", "--no-tui", "--yes"), "types secrets: pass --secret PW="),
        (("rerun", "darkmode", "--no-tui", "--yes", "--var", "user"), "a variable is NAME=VALUE"),
    ]:
        result = run_cli("--db", str(db_path), *args)
        assert result.returncode == 2, (args, result)
        assert said in result.stderr and len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
    folder = db_path.parent / "exported"
    exported = run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(folder), "--version", "1")
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "actions.json", "fingerprints.json",
                                                      "policies.json", "selectors.json", "summary.md",
                                                      "workflow.json"]
    # The recording run's report: what it set out to do, and that it made this recipe.
    readme = (folder / "README.md").read_text()
    assert "goalbot recipe import THIS_FOLDER" in readme and "goalbot rerun darkmode --var user=… --secret PW=…" \
        in readme, readme
    helped = run_cli("rerun", "--help").stdout
    assert "--patcher-model" in helped and "--planner-model" not in helped and "--navigator-model" not in helped
    summary = (folder / "summary.md").read_text()
    assert "- Goal: sign in and turn on dark mode" in summary and "Saved as recipe darkmode v1" in summary, summary
    assert json.loads((folder / "selectors.json").read_text())["s1a3"]["name"] == "Sign in"
    imported = run_cli("--db", str(db_path), "recipe", "import", str(folder))
    assert imported.returncode == 0 and "as v3" in imported.stdout, imported
    assert "do the same" in run_cli("--db", str(db_path), "recipe", "diff", "darkmode", "1", "3").stdout
    changed = run_cli("--db", str(db_path), "recipe", "diff", "darkmode", "1", "2").stdout
    assert "-   [1] type textbox \"User\" (text='{{user}}')" in changed, changed
    assert "+   [1] type textbox \"User\" (text='alice')" in changed, changed
    (folder / "workflow.json").write_text(json.dumps({**json.loads((folder / "workflow.json").read_text()),
                                                      "name": "../escape"}))
    broken = db_path.parent / "broken"
    broken.mkdir()
    (broken / "workflow.json").write_text("{not json")
    for args, said in [
        (("recipe", "import", str(folder)), "bad recipe name '../escape'"),
        (("recipe", "import", str(broken)), "workflow.json is not JSON"),
        (("recipe", "import", str(db_path.parent / "nowhere")), "is not a folder"),
        (("recipe", "diff", "darkmode", "1", "7"), "no recipe darkmode v7"),
    ]:
        result = run_cli("--db", str(db_path), *args)
        assert result.returncode == 2 and said in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    deleted = run_cli("--db", str(db_path), "recipe", "delete", "darkmode")
    assert deleted.returncode == 0 and "3 versions" in deleted.stdout, deleted
    assert "no recipes yet" in run_cli("--db", str(db_path), "recipe", "list").stdout


def test_an_action_that_no_longer_does_what_it_did_is_an_expectation_failure(hardsite: HardSite, model_server,
                                                                              db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    hardsite.reset()
    result, events = _rerun(db_path, "--url", f"{hardsite.page('darkmode')}?variant=unsaved")
    assert result.returncode == 1, result.stderr
    failed = [e for e in events if e["type"] == "ACT_FAIL"]
    assert [e["error"] for e in failed] == ["ExpectationFailed"], failed
    assert "did not say 'Saved'" in failed[0]["message"], failed
    assert events[-1]["type"] == "TASK_FAIL" and "ExpectationFailed" in events[-1]["reason"], events[-1]
    report = run_cli("--db", str(db_path), "report").stdout
    assert "failed: ExpectationFailed" in report and "re-planned" not in report, report  # a rerun never re-plans


def test_between_two_likely_elements_the_rerun_asks_rather_than_guesses(hardsite: HardSite, model_server,
                                                                         db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    hardsite.reset()
    result, events = _rerun(db_path, "--url", f"{hardsite.page('darkmode')}?variant=ambiguous")
    assert result.returncode == 1, result.stderr
    asked = [e for e in events if e["type"] == "APPROVAL_REQUEST"]
    assert len(asked) == 1 and asked[0]["kind"] == "checkpoint" and '"Save"' in asked[0]["what"], asked
    assert events[-1]["type"] == "TASK_CANCEL" and "NOT GO at the checkpoint" in events[-1]["reason"]
    assert hardsite.reached("/api/settings") == []  # neither "Save draft" nor "Save copy" was pressed


def test_a_risky_step_of_a_recipe_still_waits_for_a_go(hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Answer Bob")],
        "navigator": [
            answer(call("click", index={"$element": "Reply"})),
            answer(call("type", index={"$element": "Your reply"}, text="See you at noon")),
            answer(call("click", index={"$element": "Send"})),
            finished(summary="answered"),
        ],
        "validator": [verdict(True, "sent"), verdict(True, "sent")],
    })
    recorded, _ = run_goal(db_path, model, hardsite.page("reply"), "answer Bob", "--allow-risky",
                           "--save-recipe", "answer-bob")
    assert recorded.returncode == 0 and "saved recipe answer-bob v1" in recorded.stderr, recorded.stderr
    for flags, code, sent in [((), 1, []), (("--allow-risky",), 0, ['{"text":"See you at noon"}'])]:
        hardsite.reset()
        result = run_cli("--db", str(db_path), "rerun", "answer-bob", "--no-tui", "--yes",
                         "--base-url", DEAD_ENDPOINT, *flags)
        assert result.returncode == code, result.stderr
        assert hardsite.reached("/api/reply", "POST") == sent


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_rerun_opens_the_dashboard_which_says_how_each_element_was_found(hardsite: HardSite, model_server,
                                                                           db_path: Path, tmp_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    session, marker = f"goalbot-rerun-{os.getpid()}", tmp_path / "exit-code"
    command = (f"{sys.executable} -m goalbot --db {db_path} --images none rerun darkmode --var user=bob "
               f"--secret PW=s3cret --base-url {DEAD_ENDPOINT}; echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", "-e", "TERM=xterm-256color"]
    tmux("new-session", "-d", "-s", session, "-x", "220", "-y", "50", "-c", str(REPO), *env, command)
    try:
        screen = wait_for(session, " ok  ")
        # The plan panel says which rung of the ladder found each step's elements.
        assert "found:" in screen and "cached 3" in screen and "cached 2" in screen, screen
        assert "progress 100%" in screen, screen
        tmux("send-keys", "-t", session, "q")
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert hardsite.reached("/api/settings", "POST")[-1] == '{"user":"bob","dark":true}'


def _menu_patch(model_server: Any) -> Any:
    return model_server({"patcher": [answer(call(
        "patch", reason="the settings are behind a menu now",
        ops=[{"op": "insert_actions", "before_step": 4, "actions": [{"name": "click", "index": {"$element": "Menu"}}]}],
    ))]})


def test_what_evidence_cannot_carry_is_patched_by_the_model_and_kept(hardsite: HardSite, model_server,
                                                                      db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    patcher, menu = _menu_patch(model_server), f"{hardsite.page('darkmode')}?variant=menu"
    hardsite.reset()
    result, events = _rerun(db_path, "--url", menu, "--base-url", patcher.base_url, "--model", "scripted")
    assert result.returncode == 0, result.stderr
    assert "the patched recipe is kept as darkmode v2" in result.stderr, result.stderr
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"bob","dark":true}']
    # One call, offered the patch tool only, whose request starts with the failure as one JSON line.
    assert len(patcher.requests) == 1
    request = patcher.requests[0]
    assert [t["function"]["name"] for t in request["tools"]] == ["patch"]
    first = json.loads(request["messages"][-1]["content"].splitlines()[0])
    assert first["failed_step"] == 4 and first["error"] == "TargetNotFound", first
    assert first["target"] == {"role": "checkbox", "name": "Dark mode"} and first["url"] == menu, first
    assert _rungs(events) == ["cached", "cached", "cached", "cached", "patch", "cached"], _rungs(events)
    report = run_cli("--db", str(db_path), "report").stdout
    assert "with 1 model call, for patches" in report and "the model's patch — patched: before step 4" in report, report
    assert "- Output recipe: darkmode v2" in report and "The next rerun runs darkmode v2" in report, report
    # Version 2 carries the menu: the next rerun needs no model at all.
    hardsite.reset()
    again, events = _rerun(db_path, "--url", menu)
    assert again.returncode == 0, again.stderr
    assert _rungs(events) == ["cached"] * 6 and not [e for e in events if e["type"] == "LLM_CALL"]
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"bob","dark":true}']
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    assert "recipe darkmode v2" in shown and 'click button "Menu"' in shown, shown
    assert "reruns: 2 · succeeded 100% · model calls per run 0.5 · patched 50% · failed again after a patch 0%" \
        in shown, shown


def test_a_patch_that_adds_steps_needs_a_go(hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    patcher = _menu_patch(model_server)
    hardsite.reset()
    result = run_cli("--db", str(db_path), "rerun", "darkmode", "--var", "user=bob", "--secret", "PW=s3cret",
                     "--no-tui", "--url", f"{hardsite.page('darkmode')}?variant=menu",
                     "--base-url", patcher.base_url, "--model", "scripted")
    assert result.returncode == 1, result.stderr  # nobody to say GO: NOT GO
    assert hardsite.reached("/api/settings") == []
    assert "darkmode v2" not in run_cli("--db", str(db_path), "recipe", "list").stdout

"""A recipe file is hostile input, and so is the page a patch is made on: an imported recipe that
moves its start to another site does not take the secrets there, a patch that sends the recipe to
a site it never visited is not kept without a person's GO, and a tampered folder is refused in one
line without harming the recipes already kept."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, darkmode_script, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"


def _record(hardsite: HardSite, model_server: Any, db_path: Path) -> None:
    result, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                         "sign in and turn on dark mode", "--save-recipe", "darkmode", "--secret", "PW=hunter2")
    assert result.returncode == 0, result.stderr


def _exported(db_path: Path) -> Path:
    folder = db_path.parent / "exported"
    assert run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(folder)).returncode == 0
    return folder


def _edit(folder: Path, kind: str, change: Any) -> None:
    path = folder / f"{kind}.json"
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def _last_events(db_path: Path) -> list[dict[str, Any]]:
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    return [dict(type=r["type"], **json.loads(r["data"] or "{}"))
            for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]


def test_an_imported_recipe_moved_to_another_site_does_not_take_the_secret_there(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    folder = _exported(db_path)
    _edit(folder, "workflow", lambda w: {**w, "name": "moved", "start_url": hardsite.page("darkmode").replace(
        hardsite.url, hardsite.other)})
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    result = run_cli("--db", str(db_path), "rerun", "moved", "--secret", "PW=s3cret", "--no-tui", "--yes",
                     "--base-url", DEAD_ENDPOINT)
    assert result.returncode == 1, result.stderr  # nobody here to say GO: NOT GO
    events = _last_events(db_path)
    asked = [e for e in events if e["type"] == "APPROVAL_REQUEST"]
    assert asked and asked[0]["kind"] == "secret_on_new_site", asked
    typed = [e for e in events if e["type"] == "ACT_OK" and e["action"].get("name") == "type"]
    assert len(typed) == 1 and "PW" not in json.dumps(typed), typed  # the user name only
    # The same recipe rerun where the person says the secret belongs: it runs.
    hardsite.reset()
    named = run_cli("--db", str(db_path), "rerun", "moved", "--secret", "PW=s3cret", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT, "--allow-domain", f"127.0.0.1:{hardsite.port(1)}")
    assert named.returncode == 0, named.stderr


def test_a_patch_that_sends_a_recipe_to_a_site_it_never_visited_is_not_kept_under_yes(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    elsewhere = f"{hardsite.other}/lure.html"
    patcher = model_server({"patcher": [answer(call(
        "patch", reason="the page says to go there first",
        ops=[{"op": "insert_actions", "before_step": 4, "actions": [{"name": "navigate", "url": elsewhere}]}],
    ))]})
    hardsite.reset()
    result = run_cli("--db", str(db_path), "rerun", "darkmode", "--secret", "PW=s3cret", "--no-tui", "--yes",
                     "--url", f"{hardsite.page('darkmode')}?variant=menu", "--base-url", patcher.base_url,
                     "--model", "scripted")
    assert result.returncode == 1, result.stderr
    asked = [e for e in _last_events(db_path) if e["type"] == "APPROVAL_REQUEST"]
    assert asked and f"127.0.0.1:{hardsite.port(1)}" in asked[0]["what"], asked
    assert hardsite.reached("/lure.html", which=1) == []
    assert "darkmode v2" not in run_cli("--db", str(db_path), "recipe", "list").stdout


HOSTILE = {
    "a NaN box": ("selectors", lambda s: {**s, "s1a1": {**s["s1a1"], "box": "NaN"}}, "NaN is not a number"),
    "an action that is a list": ("workflow", lambda w: {**w, "steps": [{**w["steps"][0], "actions": [[1, 2]]}]},
                                 "not an object"),
    "fingerprints that are a list": ("fingerprints", lambda f: [f], "not the dict of a recipe"),
    "a name with a newline": ("workflow", lambda w: {**w, "name": "darkmode\n"}, "bad recipe name"),
    "a nested argument": ("workflow", lambda w: {**w, "steps": [{**w["steps"][0], "actions": [
        {**w["steps"][0]["actions"][0], "args": {"text": {"deep": [1]}}}]}]}, "not a word, a number"),
    "a policy with an unknown operator": ("policies", lambda _: {"p": {"hard": [
        {"field": "price", "op": "like", "value": 1}]}}, "p.hard.0.op: unknown operator 'like'"),
    "a policy that is code": ("policies", lambda _: {"p": {"eval": "__import__('os')"}},
                              "p.eval: is not a part of a policy"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE) + ["deep nesting", "a 5,000-digit number", "a FIFO",
                                                    "100,000 actions"])
def test_a_tampered_recipe_folder_is_refused_in_one_line_and_keeps_the_store_whole(
        hardsite: HardSite, model_server, db_path: Path, case: str) -> None:
    _record(hardsite, model_server, db_path)
    folder = _exported(db_path)
    said = ""
    if case in HOSTILE:
        kind, change, said = HOSTILE[case]
        _edit(folder, kind, change)
        if case == "a NaN box":  # JSON's NaN, as Python writes it
            path = folder / "selectors.json"
            path.write_text(path.read_text().replace('"NaN"', "NaN"))
    elif case == "deep nesting":
        (folder / "selectors.json").write_text("[" * 200_000 + "]" * 200_000)
        said = "nested too deeply"
    elif case == "a 5,000-digit number":
        (folder / "fingerprints.json").write_text('{"s1a1": {"urlContains": ' + "9" * 5000 + "}}")
        said = "digits"
    elif case == "a FIFO":
        (folder / "selectors.json").unlink()
        os.mkfifo(folder / "selectors.json")
        said = "not a regular file"
    else:
        _edit(folder, "workflow", lambda w: {**w, "steps": [{**w["steps"][0],
                                                             "actions": w["steps"][0]["actions"] * 34_000}]})
        said = "over 4 MB"
    result = run_cli("--db", str(db_path), "recipe", "import", str(folder), timeout=60)
    assert result.returncode == 2 and said in result.stderr, (case, result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr
    listed = run_cli("--db", str(db_path), "recipe", "list")
    assert listed.returncode == 0 and listed.stdout.startswith("darkmode") and " v1 " in listed.stdout, listed
    assert rows(db_path, "select count(*) as n from recipe_versions")[0]["n"] == 1  # nothing half-imported


def test_a_damaged_stored_recipe_does_not_break_the_others(hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    with sqlite3.connect(db_path) as db:  # a version an older goalbot kept with a NaN box, stored as null
        data = json.loads(db.execute("select data from recipe_versions").fetchone()[0])
        data["name"], data["steps"][0]["actions"][0]["target"]["box"] = "broken", [None, 0, 0, 0]
        db.execute("insert into recipe_versions (name, version, created_at, source_session, data) "
                   "values ('broken', 1, '2026-01-01', '', ?)", [json.dumps(data)])
        db.execute("insert into recipe_versions (name, version, created_at, source_session, data) "
                   "values ('garbled', 1, '2026-01-01', '', '{not json')")  # a row the disk damaged
    listed = run_cli("--db", str(db_path), "recipe", "list")
    assert listed.returncode == 0 and "darkmode" in listed.stdout and "unreadable" in listed.stdout, listed
    for args in (("recipe", "show", "broken"), ("rerun", "broken", "--no-tui", "--yes")):
        shown = run_cli("--db", str(db_path), *args)
        assert shown.returncode == 2 and "unreadable" in shown.stderr and "Traceback" not in shown.stderr, shown
    deleted = run_cli("--db", str(db_path), "recipe", "delete", "broken")
    assert deleted.returncode == 0 and "1 versions" in deleted.stdout, deleted
    # The good recipe still reruns: the store's other recipes are read for the banners they dismissed.
    hardsite.reset()
    again = run_cli("--db", str(db_path), "rerun", "darkmode", "--secret", "PW=hunter2", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr


def test_terminal_escapes_in_a_recipe_file_never_reach_the_terminal(hardsite: HardSite, model_server,
                                                                    db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    folder = _exported(db_path)
    sneaky = "sign in \x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07 and go"
    _edit(folder, "workflow", lambda w: {**w, "name": "sneaky", "goal": sneaky,
                                         "steps": [{**w["steps"][0], "description": sneaky}, *w["steps"][1:]]})
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    for args in (("recipe", "list"), ("recipe", "show", "sneaky"), ("recipe", "show", "sneaky", "--json")):
        shown = run_cli("--db", str(db_path), *args)
        assert shown.returncode == 0 and "\x1b" not in shown.stdout and "\x07" not in shown.stdout, (args, shown)
    assert "sign in" in run_cli("--db", str(db_path), "recipe", "show", "sneaky").stdout


def test_a_lone_surrogate_in_the_answer_is_printed_not_a_crash(hardsite: HardSite, model_server,
                                                               db_path: Path) -> None:
    model = model_server({
        "planner": [answer(call("plan", observation="page", steps=[], done=True, progress_percent=100,
                                confidence=0.9, final_answer="it is \ud800 there"))],
        "validator": [verdict(True, "there", answer_text="it is \ud800 there")],
    })
    result, events = run_goal(db_path, model, hardsite.page("home"), "is it there?")
    assert result.returncode == 0, result.stderr
    assert "it is \ufffd there" in result.stdout, result.stdout
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"



def test_a_recipe_keeps_its_policies_shows_them_diffs_them_and_exports_them_as_they_were(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    folder = _exported(db_path)
    assert json.loads((folder / "policies.json").read_text()) == {}
    policies = {"front": {"hard": [{"field": "available", "op": "==", "value": True},
                                   {"field": "price", "op": "<=", "value": "{{vars.MAX}}"}],
                          "score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": 10}],
                          "tie_break": ["price_asc"], "pick": "argmax"}}
    (folder / "policies.json").write_text(json.dumps(policies))
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    assert ('policy front: only available == true; price <= "{{vars.MAX}}" · +10 when row == 1 · pick highest '
            "score · ties by price_asc (needs --var MAX)") in shown, shown
    diff = run_cli("--db", str(db_path), "recipe", "diff", "darkmode", "1", "2").stdout
    assert "+policy front: only available == true" in diff, diff
    again = db_path.parent / "again"
    assert run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(again)).returncode == 0
    assert json.loads((again / "policies.json").read_text()) == policies


def test_a_rerun_gives_its_result_as_json_on_stdout_and_its_events_on_stderr(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    hardsite.reset()
    out = tmp_path / "result.json"
    result = run_cli("--db", str(db_path), "rerun", "darkmode", "--secret", "PW=hunter2", "--no-tui", "--yes",
                     "--base-url", DEAD_ENDPOINT, "--json", "--output", str(out))
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["status"] == "ok" and printed["valid"] and printed["errors"] == [], printed
    assert printed["session"] in result.stderr and "ACT_OK" in result.stderr  # the events went to stderr
    assert json.loads(out.read_text()) == printed and "hunter2" not in result.stdout + out.read_text()

"""Blocks and sign-ins that renew: a recipe runs another recipe as one of its steps (a sign-in
made a block, drawn as a tree, following its latest version or pinned), and a rerun that meets a
sign-in wall where it expected the app (the session expired mid-rerun) runs the site's sign-in
recipe and carries on. Real Chromium, the test site, the scripted model over HTTP for the
recordings; every rerun's endpoint is a dead port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flows_kit import account_scripts
from kit import darkmode_script, rows, run_cli, run_goal
from hardsite.server import HardSite
from storage import recipes
from storage.db import connect

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


def _rerun(db_path: Path, name: str, url: str, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", name, "--secret", "PW=hunter2", "--no-tui", "--yes",
                     "--url", url, "--base-url", DEAD_ENDPOINT, *flags)
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], step=r["step"], **json.loads(r["data"] or "{}"))
              for r in rows(db_path, "select type, step, data from events where session_id = ? order by seq", session)]
    return result, events


def _said(events: list[dict[str, Any]], policy: str) -> list[str]:
    return [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == policy]


def test_a_sign_in_made_a_block_is_run_by_the_recipe_with_no_model_and_drawn_as_a_tree(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    recorded, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                           "sign in and turn on dark mode", "--save-recipe", "darkmode", "--secret", "PW=hunter2")
    assert recorded.returncode == 0, recorded.stderr
    made = run_cli("--db", str(db_path), "recipe", "block", "darkmode", "--steps", "1", "--as", "login")
    assert made.returncode == 0, made.stderr
    assert "steps 1 of darkmode are kept as block login v1; darkmode v2 runs it" in made.stdout, made.stdout

    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    assert "1. Sign in as alice\n   └ block login (its latest version): login v1\n     1. Sign in as alice" in shown, shown
    assert 'type textbox "User"' in shown and "2. Turn on dark mode and save" in shown, shown
    assert run_cli("--db", str(db_path), "recipe", "show", "login").stdout.count("[") >= 3

    hardsite.reset()
    result, events = _rerun(db_path, "darkmode", hardsite.page("darkmode"))
    assert result.returncode == 0, result.stderr
    assert not [e for e in events if e["type"] == "LLM_CALL"]
    assert _said(events, "recipe_block") == ["step 1 runs block login v1"]
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"alice","dark":true}']
    typed = [e for e in events if e["type"] == "ACT_OK" and e["action"].get("name") == "type"]
    assert [e["step"] for e in typed] == [1, 1] and "hunter2" not in json.dumps(events)
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    report = run_cli("--db", str(db_path), "report", session).stdout
    assert "- step 1 runs block login v1" in report and "safety policy recipe_block" not in report, report

    # A block's secret must be given to the recipe that runs it, as its own would be.
    refused = run_cli("--db", str(db_path), "rerun", "darkmode", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert refused.returncode == 2 and "types secrets: pass --secret PW=…" in refused.stderr, refused.stderr

    # A block that would run the recipe that runs it is refused before anything is kept.
    circle = run_cli("--db", str(db_path), "recipe", "block", "login", "--steps", "1", "--use", "darkmode")
    assert circle.returncode != 0 and "runs itself: login → darkmode → login" in circle.stderr, circle.stderr
    assert rows(db_path, "select max(version) v from recipe_versions where name = 'login'")[0]["v"] == 1

    # Exported, the block step is kept by name; an import whose block is missing is refused at rerun.
    folder = db_path.parent / "exported"
    assert run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(folder)).returncode == 0
    workflow = json.loads((folder / "workflow.json").read_text())
    assert workflow["steps"][0]["block"] == {"recipe": "login", "version": None, "values": {}}
    assert "goalbot recipe export login DIR" in (folder / "README.md").read_text()
    workflow["name"], workflow["steps"][0]["block"]["recipe"] = "elsewhere", "nowhere"
    (folder / "workflow.json").write_text(json.dumps(workflow))
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    missing = run_cli("--db", str(db_path), "rerun", "elsewhere", "--secret", "PW=x", "--no-tui", "--yes",
                      "--base-url", DEAD_ENDPOINT)
    assert missing.returncode == 2 and "runs block nowhere, which is not in this store" in missing.stderr, missing.stderr
    # A block entry that marks itself approved is refused by name, as an action would be.
    workflow["steps"][0]["block"]["approved"] = True
    (folder / "workflow.json").write_text(json.dumps(workflow))
    marked = run_cli("--db", str(db_path), "recipe", "import", str(folder))
    assert marked.returncode == 2 and "step 1 block marks a step safe" in marked.stderr, marked.stderr


def test_a_session_that_expires_mid_rerun_is_renewed_by_the_sites_sign_in_recipe(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    login_script, prefs_script = account_scripts()
    state = db_path.parent / "state.json"  # the kept session: cookies written at each run's end
    account = hardsite.page("account")
    hardsite.reset()
    signed, _ = run_goal(db_path, model_server(login_script), account, "sign in", "--secret", "PW=hunter2",
                         "--save-recipe", "login", "--storage-state", str(state))
    assert signed.returncode == 0, signed.stderr
    prefs, _ = run_goal(db_path, model_server(prefs_script), account, "turn on dark mode in the preferences",
                        "--save-recipe", "prefs", "--storage-state", str(state))
    assert prefs.returncode == 0, prefs.stderr
    assert len(hardsite.reached("/api/signin", "POST")) == 1  # the second recording was signed in already

    # Another recipe of the same site types the secret too, into a field this wall does not have:
    # it sorts first, and is not the one run.
    store = connect(db_path)
    login = recipes.load(store, "login")
    assert login is not None and login.steps[0].actions[0].target is not None
    other = login.model_copy(deep=True, update={"name": "a-search"})
    first = other.steps[0].actions[0].target
    assert first is not None
    other.steps[0].actions[0].target = first.model_copy(update={"name": "Search", "label": "Search", "css": "#search",
                                                                "xpath": "", "id": "search"})
    recipes.save(store, other)
    store.close()

    # The session ends when the preferences open: the wall stands where the recipe expects the app.
    hardsite.reset()
    hardsite.expire_at = "/account-prefs.html"
    result, events = _rerun(db_path, "prefs", account, "--storage-state", str(state))
    assert result.returncode == 0, result.stderr
    assert not [e for e in events if e["type"] == "LLM_CALL"]
    assert _said(events, "recipe_login") == ["step 2: the page asks to sign in again: running recipe login v1"]
    assert hardsite.reached("/api/signin", "POST") == ['{"email":"alice@example.com","password":"hunter2"}']
    assert hardsite.reached("/api/settings", "POST") == ['{"dark":true}']
    assert "hunter2" not in json.dumps(events)

    # With no sign-in recipe for this wall, a checkpoint says so; unattended, the rerun stops there.
    assert run_cli("--db", str(db_path), "recipe", "delete", "login").returncode == 0
    for left, said in ((True, "no sign-in recipe of this site finds its first field on this page"),
                       (False, "no recipe recorded in this store signs in on 127.0.0.1")):
        if not left:
            assert run_cli("--db", str(db_path), "recipe", "delete", "a-search").returncode == 0
        hardsite.reset()
        hardsite.expire_at = "/account-prefs.html"
        stopped, events = _rerun(db_path, "prefs", account, "--storage-state", str(state))
        assert stopped.returncode != 0
        assert f"the page asks to sign in again and {said}" in stopped.stderr, stopped.stderr
        assert hardsite.reached("/api/settings", "POST") == [] and hardsite.reached("/api/signin", "POST") == []

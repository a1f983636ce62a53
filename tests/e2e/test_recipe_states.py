"""States, not clicks: a recipe keeps what a click on a checkbox, a switch or a radio set, and a
rerun where the setting already holds leaves it. A rerun that clicked again would turn off what the
goal turned on, and say every step ran as recorded. Real Chromium, the test site's preferences page
(which shows what was saved last), the scripted model for the recording, a dead endpoint for the
reruns, the exported script under plain Python."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from hardsite.server import HardSite
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict

DEAD = ("--base-url", "http://127.0.0.1:9/v1", "--model", "dead")


def _preferences_script() -> dict[str, object]:
    return {
        "planner": [plan("Turn on dark mode and order e-mails, choose the weekly digest, and save")],
        "navigator": [
            answer(call("click", index=element("Dark mode", role="checkbox"))),
            answer(call("click", index=element("E-mail me about orders", role="switch"))),
            answer(call("click", index=element("Weekly digest", role="radio"))),
            answer(call("click", index=element("Save", role="button"))),
            finished(summary="saved"),
        ],
        "validator": [verdict(True, "dark mode and e-mails on, weekly digest, saved")],
    }


def _saved(hardsite: HardSite, prefs: dict[str, object]) -> None:
    request = urllib.request.Request(f"{hardsite.url}/api/kept-settings", data=json.dumps(prefs).encode(),
                                     method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


def _last_saved(hardsite: HardSite) -> dict[str, object]:
    return json.loads(hardsite.reached("/api/kept-settings", "POST")[-1])


def _recorded(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    result, _ = run_goal(db_path, model_server(_preferences_script()), hardsite.page("kept-settings"),
                         "turn on dark mode and order e-mails, weekly digest", "--save-recipe", "prefs")
    assert result.returncode == 0, result.stderr
    assert _last_saved(hardsite) == {"dark": True, "mail": True, "digest": "weekly"}


def test_a_rerun_where_the_settings_already_hold_leaves_them(hardsite: HardSite, model_server, db_path: Path) -> None:
    _recorded(hardsite, model_server, db_path)
    shown = run_cli("--db", str(db_path), "recipe", "show", "prefs")
    assert "it is checked" in shown.stdout, shown.stdout

    # What the recording saved is what the page shows now: every toggle already as the recipe sets it.
    rerun = run_cli("--db", str(db_path), "rerun", "prefs", "--no-tui", "--yes", *DEAD)
    assert rerun.returncode == 0, rerun.stderr
    assert _last_saved(hardsite) == {"dark": True, "mail": True, "digest": "weekly"}
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    said = [json.loads(r["data"]) for r in rows(db_path, "select data from events where session_id = ? and "
                                                         "type = 'POLICY'", session)]
    left = [e["message"] for e in said if e.get("policy") == "recipe_state"]
    assert len(left) >= 3 and any("Dark mode" in said and "already checked" in said for said in left), left
    assert "3 settings already as the recipe sets them" in rerun.stdout + rerun.stderr


def test_a_rerun_sets_what_is_off_and_leaves_what_is_on(hardsite: HardSite, model_server, db_path: Path) -> None:
    _recorded(hardsite, model_server, db_path)
    _saved(hardsite, {"dark": True, "mail": False, "digest": "daily"})
    rerun = run_cli("--db", str(db_path), "rerun", "prefs", "--no-tui", "--yes", *DEAD)
    assert rerun.returncode == 0, rerun.stderr
    assert _last_saved(hardsite) == {"dark": True, "mail": True, "digest": "weekly"}


def test_the_exported_script_sets_the_state_rather_than_clicking(hardsite: HardSite, model_server,
                                                                 db_path: Path) -> None:
    from test_recipe_as_code import _run_script

    _recorded(hardsite, model_server, db_path)
    out = db_path.parent / "prefs.py"
    assert run_cli("--db", str(db_path), "recipe", "export", "prefs", str(out), "--as", "playwright").returncode == 0
    assert "set_checked(True)" in out.read_text()
    _saved(hardsite, {"dark": True, "mail": False, "digest": "weekly"})
    ran = _run_script(out, "--url", hardsite.page("kept-settings"))
    assert ran.returncode == 0, ran.stderr
    assert _last_saved(hardsite) == {"dark": True, "mail": True, "digest": "weekly"}

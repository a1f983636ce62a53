"""A cookie banner met while recording is kept as an optional action: a rerun where the banner
comes accepts it, one where it does not goes on without it — both with no model (the endpoint is
a dead port). A recipe recorded without the banner is let through it as another recipe of this
store dismissed it, never as an imported file says. Real Chromium, the test site, the scripted
model over HTTP for the recordings."""

from __future__ import annotations

import json
from pathlib import Path

from flows_kit import consent_script
from kit import answer, call, element, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"


def _record(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["banner"] = True
    result, _ = run_goal(db_path, model_server(consent_script()), hardsite.page("consent"), "accept the cookies and turn on dark mode",
                         "--save-recipe", "prefs")
    assert result.returncode == 0, result.stderr


def _record_without_banner(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["banner"] = False
    model = model_server({
        "planner": [plan("Turn on dark mode and save")],
        "navigator": [answer(call("click", index=element("Dark mode")), call("click", index=element("Save")),
                             call("finished", success=True, summary="saved"))],
        "validator": [verdict(True, "dark mode saved")],
    })
    result, _ = run_goal(db_path, model, hardsite.page("consent"), "turn on dark mode", "--save-recipe", "dark")
    assert result.returncode == 0, result.stderr


def _rerun(hardsite: HardSite, db_path: Path, banner: bool, name: str = "prefs") -> tuple[str, list[dict]]:
    hardsite.reset()
    hardsite.posted["banner"] = banner
    again = run_cli("--db", str(db_path), "rerun", name, "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    assert rows(db_path, "select model_calls from sessions where id = ?", session)[0]["model_calls"] == 0
    assert hardsite.reached("/api/prefs", "POST") == ['{"dark":true}']
    events = [{"type": r["type"], **json.loads(r["data"])}
              for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]
    return again.stderr, events


def test_a_cookie_banner_is_accepted_when_it_comes_and_left_out_when_it_does_not(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)
    shown = run_cli("--db", str(db_path), "recipe", "show", "prefs").stdout
    assert "only when it is on the page: it dismissed the Cookie consent" in shown, shown
    _, without = _rerun(hardsite, db_path, banner=False)
    skipped = [e for e in without if e["type"] == "POLICY" and e["policy"] == "recipe_optional"]
    assert len(skipped) == 1 and "Accept all" in skipped[0]["message"], skipped
    assert not [e for e in without if e["type"] == "ACT_START" and e["action"].get("name") == "click"
                and "Accept" in json.dumps(e.get("target"))]
    _, with_it = _rerun(hardsite, db_path, banner=True)
    assert not [e for e in with_it if e["type"] == "POLICY" and e["policy"] == "recipe_optional"]
    clicked = [json.dumps(e.get("target")) for e in with_it if e["type"] == "ACT_START"]
    assert any("Accept all" in target for target in clicked), clicked


def test_only_the_action_that_dismissed_the_banner_is_optional(hardsite: HardSite, model_server,
                                                               db_path: Path) -> None:
    # Dark mode and Save are the flow itself: were they gone, the rerun would heal or stop, not skip.
    _record(hardsite, model_server, db_path)
    shown = run_cli("--db", str(db_path), "recipe", "show", "prefs").stdout
    assert shown.count("only when it is on the page") == 1, shown  # the banner's, not Dark mode's or Save's


def test_a_banner_this_recording_never_met_is_dismissed_as_another_recipe_did(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    _record(hardsite, model_server, db_path)  # "prefs" met the banner and accepted it
    _record_without_banner(hardsite, model_server, db_path)
    _, events = _rerun(hardsite, db_path, banner=True, name="dark")
    said = [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == "recipe_optional"]
    assert len(said) == 1 and "'Accept all'" in said[0] and "seen before on this site" in said[0], said


def test_an_imported_recipe_teaches_no_banner_to_dismiss(hardsite: HardSite, model_server, tmp_path: Path) -> None:
    # The banner's dismissal comes only in a file: the rerun must not click what a file names.
    theirs, ours, folder = tmp_path / "theirs.db", tmp_path / "ours.db", tmp_path / "prefs-recipe"
    _record(hardsite, model_server, theirs)
    assert run_cli("--db", str(theirs), "recipe", "export", "prefs", str(folder)).returncode == 0
    assert run_cli("--db", str(ours), "recipe", "import", str(folder)).returncode == 0
    _record_without_banner(hardsite, model_server, ours)
    hardsite.reset()
    hardsite.posted["banner"] = True
    again = run_cli("--db", str(ours), "rerun", "dark", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert again.returncode != 0 and "Traceback" not in again.stderr
    assert "seen before" not in again.stderr and hardsite.reached("/api/prefs", "POST") == []


def test_a_banner_that_comes_after_the_first_look_is_dismissed_when_it_covers_the_next_element(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    """Recorded with the banner there from the start and a pause before the switch; rerun where the
    banner comes 1.2 s after the page, after the look that left its optional step out: the switch
    it then covers is clicked once the banner is dismissed, with no model."""
    hardsite.reset()
    hardsite.posted["banner"] = True
    script = consent_script()
    script["navigator"][1]["tool_calls"].insert(0, call("wait", seconds=1.5))
    recorded, _ = run_goal(db_path, model_server(script), hardsite.page("consent"),
                           "accept the cookies and turn on dark mode", "--save-recipe", "prefs")
    assert recorded.returncode == 0, recorded.stderr
    hardsite.reset()
    hardsite.posted["banner"] = "late"
    again = run_cli("--db", str(db_path), "rerun", "prefs", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    said = [json.loads(r["data"])["message"] for r in rows(
        db_path, "select data from events where session_id = ? and type = 'POLICY'", session)]
    assert any(m.startswith("skipped click button \"Accept all\"") for m in said), said
    assert "dismissed button 'Accept all' (Cookie consent): it came late" in said, said
    assert hardsite.reached("/api/prefs", "POST") == ['{"dark":true}']

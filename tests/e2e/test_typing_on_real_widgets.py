"""Whole runs typing into the widgets real applications draw: text typed into a framed rich-text
editor (TinyMCE's kind) is the page's text, not a password, in the events, the recipe and its
rerun; a password typed into a sign-in frame of another origin never reaches the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model
TEXT = "Welcome to the team wiki"


def typed(events: list[dict[str, Any]]) -> list[str]:
    return [e["action"]["text"] for e in events if e["type"] == "ACT_START" and e["action"]["name"] == "type"]


def test_text_typed_into_a_framed_editor_is_kept_as_typed_and_the_recipe_reruns(
    hardsite: HardSite, model_server: Any, db_path: Path
) -> None:
    hardsite.reset()
    model = model_server({
        "planner": [plan("Write the page text and save the page")],
        # The editor has the keys on load: the model types where the caret is, as it would.
        "navigator": [answer(call("type", text=TEXT)), answer(call("click", index=element("Save page"))),
                      finished(summary="saved")],
        "validator": [verdict(True, "the page says Saved.")],
    })
    result, events = run_goal(db_path, model, hardsite.page("framed-editor") + "?focus", "write the wiki start page",
                              "--save-recipe", "wiki")
    assert result.returncode == 0, result.stderr
    assert hardsite.posted["wiki"] == {"body": TEXT}
    assert typed(events) == [TEXT]
    shown = run_cli("--db", str(db_path), "recipe", "show", "wiki")
    assert shown.returncode == 0, shown.stderr
    assert TEXT in shown.stdout and "secret" not in shown.stdout, shown.stdout
    hardsite.reset()
    rerun = run_cli("--db", str(db_path), "rerun", "wiki", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stderr + rerun.stdout
    assert hardsite.posted["wiki"] == {"body": TEXT}


def test_a_password_typed_into_a_sign_in_frame_never_reaches_the_store(
    hardsite: HardSite, model_server: Any, db_path: Path
) -> None:
    model = model_server({
        "planner": [plan("Sign in with Acme ID")],
        "navigator": [answer(call("type", index=element("Email", role="textbox"), text="jin@example.com")),
                      answer(call("click", index=element("Password", role="textbox"))),
                      answer(call("type", text="hunter22-secret")),
                      answer(call("click", index=element("Sign in", role="button"))),
                      finished(summary="signed in")],
        "validator": [verdict(True, "signed in")],
    })
    result, events = run_goal(db_path, model, hardsite.page("framed-signin"), "sign in with acme id")
    assert result.returncode == 0, result.stderr
    assert json.loads(hardsite.reached("/api/signin", "POST", which=1)[-1])["password"] == "hunter22-secret"
    assert typed(events) == ["jin@example.com", "•••"]
    stored = rows(db_path, "select data from events")
    assert not [r for r in stored if "hunter22" in (r["data"] or "")]

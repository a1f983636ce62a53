"""A risky press after its GO always ends: issue 68, "Publish" in a CMS's page editor hung after
the GO was granted. "Publish" is judged by what it does (the page's writes held), and the gate
held its form too: the form the GO let through posted into the still-armed write hold, which kept
that post for ever, and Chromium answers nothing on a tab whose navigation waits. Each run is
bounded well under pytest's timeout, so a hang fails fast.

hardsite's publish.html is such an editor: one form with Save draft and Publish, posting back to
its own address, answered with a 302 to the same page; `?how=` adds what real editors do (a
`beforeunload` warning armed by an edit, Publish submitted by `requestSubmit(button)`, Publish
sent by `fetch` then a navigation, Publish inside a menu, a "Delete page" button or link, asked
about before it is pressed) or a server that never answers. The site's own log counts the saves."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kit import REPO, answer, call, element, finished, plan, rows, stored_events, verdict
from hardsite.server import HardSite

RUN_DEADLINE_S = 90  # a run that has not ended by then hangs; pytest's own timeout is 300 s
END_EVENTS = {"TASK_OK", "TASK_FAIL", "TASK_CANCEL"}
VARIANTS = ["", "unsaved", "script", "fetch", "menu", "unsaved,menu", "unsaved,script", "unsaved,fetch",
            "delete", "unsaved,delete", "link"]


def _publish_answers(how: str) -> list[dict[str, Any]]:
    """What a model reading the editor would answer, one look at a time: edit the title, open the
    menu (its Publish is listed only once it is open), press Publish (or Delete page)."""
    answers = [answer(call("type", index=element("Title", role="textbox"), text="Opening hours (summer)"))]
    if "menu" in how.split(","):
        answers.append(answer(call("click", index=element("More actions"))))
    risky = "Delete page" if {"delete", "link"} & set(how.split(",")) else "Publish"
    return answers + [answer(call("click", index=element(risky)))]


def _run(db_path: Path, model: Any, url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`goalbot run` as test_gates runs it, but bounded by RUN_DEADLINE_S: a hang is a failure that
    says so, never pytest's timeout."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "publish the opening hours",
             "--url", url, "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted", *flags],
            capture_output=True, text=True, timeout=RUN_DEADLINE_S, stdin=subprocess.DEVNULL, cwd=REPO)
    except subprocess.TimeoutExpired as hung:
        events = [e["type"] for e in stored_events(db_path)] if db_path.exists() else []
        pytest.fail(f"the run hung: no end within {RUN_DEADLINE_S} s; its events: {events}; "
                    f"stderr: {(hung.stderr or b'')[-2000:]!r}")
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _publish(hardsite: HardSite, model_server, db_path: Path, how: str,
             *flags: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    hardsite.reset()
    model = model_server({
        "planner": [plan("Change the title and publish the page")] * 2,
        "navigator": [*_publish_answers(how), finished(summary="published"), finished(summary="published")],
        "validator": [verdict(True, "The page says Published.")] * 3,
    })
    result = _run(db_path, model, f"{hardsite.page('publish')}?how={how}", "--max-failures", "1", *flags)
    return result, stored_events(db_path)


def _deeds(hardsite: HardSite, how: str) -> list[str]:
    """The requests that published (or deleted) the page, from the site's own log."""
    if "link" in how.split(","):
        return hardsite.reached("/publish/delete", "GET")
    return hardsite.reached("/publish.html", "POST")


def _after_the_go(events: list[dict[str, Any]]) -> dict[str, Any]:
    """How the action the GO was given for ended: the first ACT_OK or ACT_FAIL after the GO."""
    granted = next(n for n, e in enumerate(events) if e["type"] == "APPROVAL_GRANTED" and e.get("risky"))
    assert events[granted]["by"] == "--allow-risky", events[granted]
    return next(e for e in events[granted:] if e["type"] in ("ACT_OK", "ACT_FAIL"))


@pytest.mark.parametrize("how", VARIANTS, ids=[v or "plain" for v in VARIANTS])
def test_publish_after_the_go_saves_once_and_the_run_ends(hardsite: HardSite, model_server, db_path: Path,
                                                          how: str) -> None:
    result, events = _publish(hardsite, model_server, db_path, how, "--allow-risky")
    kinds = [e["type"] for e in events]
    assert kinds[-1] in END_EVENTS, kinds
    assert len(_deeds(hardsite, how)) == 1, _deeds(hardsite, how)
    acted = _after_the_go(events)
    assert acted["type"] == "ACT_OK", acted
    assert kinds[-1] == "TASK_OK", (kinds, result.stderr[-2000:])


@pytest.mark.parametrize("how", VARIANTS, ids=[v or "plain" for v in VARIANTS])
def test_publish_without_allow_risky_ends_not_go_and_sends_nothing(hardsite: HardSite, model_server,
                                                                   db_path: Path, how: str) -> None:
    result, events = _publish(hardsite, model_server, db_path, how)
    assert _deeds(hardsite, how) == []
    kinds = [e["type"] for e in events]
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO"), kinds
    assert result.returncode == 1


@pytest.mark.parametrize("how", ["nothing", "unsaved,menu,nothing", "delete,nothing", "link,nothing"])
def test_a_site_that_never_answers_ends_the_action_after_the_go_and_the_run(
        hardsite: HardSite, model_server, db_path: Path, how: str) -> None:
    # Chromium answers no call to a tab whose navigation waits for its answer: before the bound,
    # the action after the GO never ended, and neither did the run. The form is let through
    # after the GO by the gate (publish, delete); the link is opened once the GO was given first.
    try:
        _result, events = _publish(hardsite, model_server, db_path, how, "--allow-risky")
    finally:
        hardsite.unanswered.set()  # the request left hanging gives up
    kinds = [e["type"] for e in events]
    assert kinds[-1] in END_EVENTS, kinds
    assert len(_deeds(hardsite, how)) == 1, _deeds(hardsite, how)
    acted = _after_the_go(events)
    said = acted["message"]
    assert acted["type"] == "ACT_FAIL" and acted["error"] == "Timeout", acted
    assert "did not answer within 30 s" in said and "look before doing it again" in said, said
    took = _first(db_path, "ACT_FAIL") - _first(db_path, "APPROVAL_GRANTED")
    assert took.total_seconds() < 30 + 20, f"the action after the GO ended, but {took} after it"
    assert "link" in how or "submitted '" in said, said  # what was sent, said to the model


def _first(db_path: Path, kind: str) -> datetime:
    return datetime.fromisoformat(rows(db_path, "select ts from events where type = ? order by seq", kind)[0]["ts"])

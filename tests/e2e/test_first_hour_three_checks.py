"""Issue 73, one step past the examples: a goal that fits a recipe but lacks its secret says which
recipe and which `--secret`; a resumed demo run keeps its `--yes` and gets usable answers; a
screenshot path in a missing folder is refused before the browser opens; a mistyped `--db` is
refused, never made; the choice table says why an item was dropped; `password "<secret:PW>"` is
the reference it looks like. Real `goalbot` processes, real Chromium, the demo's site and model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Iterator

import pytest

from goalbot.demo.goals import DEMO_GOAL, SHOP_GOAL
from goalbot.demo.site import DemoSite
from goalbot.scripted.server import Script, ScriptedModelServer
from hardsite.server import HardSite
from kit import REPO, darkmode_script, rows, run_cli, run_goal, stored_events, wait_until

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens: a refusal must come before any model call


@pytest.fixture
def demo_model() -> Iterator[ScriptedModelServer]:
    """The bundled demo's own scripted model, with the rules `goalbot demo` answers by."""
    with ScriptedModelServer(Script.demo()) as model:
        yield model


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# -- 2: a goal that fits a recipe but lacks its secret -------------------------------------------

def test_a_goal_that_fits_a_recipe_but_lacks_its_secret_names_the_recipe_and_the_flag(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    recorded, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                           "sign in and turn on dark mode", "--save-recipe", "darkmode",
                           "--secret", "PW=hunter2", "--var", "user=alice")
    assert recorded.returncode == 0, recorded.stderr
    sessions_before = len(rows(db_path, "select id from sessions"))
    refused = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url", hardsite.page("darkmode"),
                      "--var", "user=bob", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--model", "scripted")
    assert refused.returncode == 2, refused
    line = _one_line(refused)
    assert "recipe darkmode v1" in line and "--secret PW=…" in line, line
    assert "endpoint" not in line and "cannot reach" not in line, line
    assert len(rows(db_path, "select id from sessions")) == sessions_before  # nothing started for it
    # With the secret the same goal reruns the recipe, with no model at all.
    found = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url", hardsite.page("darkmode"),
                    "--var", "user=bob", "--secret", "PW=s3cret", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--model", "scripted")
    assert found.returncode == 0 and "from recipe darkmode v1" in found.stderr, found.stderr


# -- 7: resume on the demo --------------------------------------------------------------------

def _demo_model_that_hangs_once_in_step_2() -> ScriptedModelServer:
    """The demo's own rules, but the first ask for step 2 hangs: that is when the cut comes."""
    script = json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))
    script["navigator"].insert(0, {"when": "Turn on the dark mode switch", "fault": "hang", "seconds": 60})
    return ScriptedModelServer(Script(script))


def _demo_run_cut_in_step_2(site: DemoSite, model: ScriptedModelServer, db_path: Path) -> str:
    """The sign-in demo run with --yes, killed with kill -9 once it signed in; its session."""
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", DEMO_GOAL, "--url", f"{site.url}/login",
         "--base-url", model.base_url, "--model", "scripted-demo", "--yes", "--no-tui"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: sum(r["role"] == "navigator" for r in model.requests) >= 2, what="step 2's first ask")
        os.kill(run.pid, signal.SIGKILL)
        run.wait(10)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert rows(db_path, "select 1 from events where type = 'STEP_OK'")  # signed in before the cut
    return str(rows(db_path, "select id from sessions")[0]["id"])


def test_a_demo_run_started_with_yes_resumes_with_yes_and_usable_answers(
        site: DemoSite, db_path: Path) -> None:
    with _demo_model_that_hangs_once_in_step_2() as model:
        session = _demo_run_cut_in_step_2(site, model, db_path)
        _resumed_as_started(site, model, session, db_path)


def _resumed_as_started(site: DemoSite, model: ScriptedModelServer, session: str, db_path: Path) -> None:
    before = len(stored_events(db_path))
    asked = run_cli("--db", str(db_path), "resume", session, "--no-tui", "--ask")  # the person says otherwise
    assert asked.returncode == 2 and "nobody can approve the plan here" in _one_line(asked), asked.stderr

    resumed = run_cli("--db", str(db_path), "resume", session, "--no-tui")  # no --yes given again
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr and "unusable" not in resumed.stdout + resumed.stderr
    after = stored_events(db_path)[before:]
    kinds = [e["type"] for e in after]
    assert kinds[0] == "TASK_RESUME" and kinds[-1] == "TASK_OK", kinds
    assert "LLM_ERROR" not in kinds and "APPROVAL_REQUEST" not in kinds, kinds
    # The new browser is signed out: the navigator says so, and the new plan signs in again.
    failed = next(e for e in after if e["type"] == "STEP_FAIL")
    assert "sign-in page" in failed["reason"], failed
    approved = [e for e in after if e["type"] == "PLAN_APPROVED"]
    assert approved and all(e["by"] == "--yes" for e in approved), approved
    assert site.state.snapshot()["dark_mode"].get("demo@example.com") is True


# -- 9: observe --screenshot into a missing folder -----------------------------------------------

def test_observe_refuses_a_screenshot_in_a_missing_folder_before_opening_the_page(
        hardsite: HardSite, tmp_path: Path) -> None:
    picture = tmp_path / "missing" / "dir" / "p.png"
    result = run_cli("observe", hardsite.page("home"), "--screenshot", str(picture))
    assert result.returncode == 2, result
    line = _one_line(result)
    assert str(picture.parent) in line and "does not exist" in line, line
    assert result.stdout == ""  # checked before the browser opened: no page was printed
    assert not picture.parent.exists()
    folder = tmp_path / "shots"
    folder.mkdir()
    taken = run_cli("observe", hardsite.page("home"), "--screenshot", str(folder / "p.png"))
    assert taken.returncode == 0 and (folder / "p.png").stat().st_size > 0, taken.stderr


# -- 10: a mistyped --db ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["sessions"], ["report"], ["tail"], ["recipe", "list"], ["recipe", "show", "cart"],
    ["resume", "20260101-000000-abcd"], ["rerun", "cart", "--no-tui", "--yes"],
])
def test_a_command_that_reads_refuses_a_store_that_is_not_there(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "sotre" / "goalbot.db"
    result = run_cli("--db", str(typo), *command)
    assert result.returncode == 2, result
    assert str(typo) in _one_line(result)
    assert not typo.parent.exists()  # neither the store nor its folder was made


def test_a_run_makes_its_store_but_not_a_missing_folder(tmp_path: Path) -> None:
    typo = tmp_path / "sotre" / "goalbot.db"
    result = run_cli("--db", str(typo), "run", "turn on dark mode", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert result.returncode == 2 and f"the folder {typo.parent} does not exist" in _one_line(result)
    assert not typo.parent.exists()
    here = tmp_path / "goalbot.db"
    run_cli("--db", str(here), "run", "turn on dark mode", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert here.is_file()  # a run in a folder that exists makes the file, as ever


# -- 14: the choice table says why ------------------------------------------------------------------

def test_the_choice_table_says_why_each_item_was_dropped(
        site: DemoSite, demo_model: ScriptedModelServer, db_path: Path) -> None:
    result, events = run_goal(db_path, demo_model, f"{site.url}/shop", SHOP_GOAL, "--var", "MAX=40",
                              "--model", "scripted-demo")
    assert result.returncode == 0, result.stderr
    chosen = next(e for e in events if e["type"] == "CHOSEN")
    why = {row["candidate"]["name"]: row["dropped_by"] for row in chosen["table"]}
    assert why["Oak Desk"] == 'name does not contain "Lamp"', why
    assert why["Clip Lamp"] == "in_stock != true" and why["Floor Lamp"] == "price > 40", why
    assert why["Reading Lamp"] is None and chosen["chosen"]["name"] == "Reading Lamp"
    report = run_cli("--db", str(db_path), "report").stdout
    assert 'dropped: name does not contain \\"Lamp\\"' in report or 'dropped: name does not contain "Lamp"' in report, \
        report
    assert 'dropped: name contains "Lamp"' not in report


# -- 16: a quoted secret reference --------------------------------------------------------------------

@pytest.mark.parametrize("goal", ['sign in with the password "<secret:PW>"', "sign in with password '<secret:PW>'",
                                  "sign in with password (<secret:PW>) and pin “<secret:PIN>”"])
def test_a_quoted_secret_reference_is_not_taken_for_a_secret(tmp_path: Path, goal: str) -> None:
    result = run_cli("--db", str(tmp_path / "goalbot.db"), "run", goal, "--secret", "PW=hunter2", "--secret", "PIN=4711",
                     "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert "secret written in the clear" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_real_secret_in_quotes_is_still_refused_and_never_repeated(tmp_path: Path) -> None:
    result = run_cli("--db", str(tmp_path / "goalbot.db"), "run", 'sign in with the password "Tulip-93"',
                     "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert result.returncode == 2 and "secret written in the clear" in _one_line(result), result.stderr
    assert "Tulip-93" not in result.stderr + result.stdout

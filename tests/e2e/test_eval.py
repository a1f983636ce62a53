"""`goalbot eval`: the bundled suite against an endpoint, each episode a batch job and a stored
session, judged by the page's own reward (MiniWoB's, the demo site's record) and not by what the
model claims; the scorecard in the terminal, as JSON and as Markdown; two scorecards compared."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from xml.etree import ElementTree
from importlib.resources import files
from pathlib import Path
from typing import Any

from kit import REPO, answer, call, element, finished, plan, rows, run_cli, verdict, wait_until

QUERIES = {"Click button ONE": ("Press the ONE button", "ONE"), "Click button TWO": ("Press the TWO button", "TWO"),
           "Click the button.": ("Press the only button", "Click Me!")}
TASKS = "click-test,click-test-2,click-dialog,demo-signin"


def _rule(when: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"when": when, "keep": True, **body}


def _script(wrong: str | None = None) -> dict[str, Any]:
    """Rules that press the button each MiniWoB page asks for (or, for the query `wrong`, the other
    one, claiming success all the same), fail on click-dialog, and do the demo's sign-in."""
    demo = json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))
    script: dict[str, Any] = {role: list(demo[role]) for role in ("planner", "navigator", "validator", "extractor")}
    for query, (step, name) in QUERIES.items():
        pressed = {"ONE": "TWO", "TWO": "ONE"}.get(name, name) if query == wrong else name
        script["planner"].insert(0, _rule(query, plan(step)))  # before the demo's, whose words the prompt may hold
        script["navigator"].append(_rule(step, answer(call("click", index=element(pressed)),
                                                      call("finished", success=True, summary="pressed"))))
        script["validator"].append(_rule(step, verdict(True, "pressed")))
    script["planner"].insert(0, _rule("dialog", plan("Close the dialog")))
    script["navigator"].append(_rule("Close the dialog", finished(False, "no dialog to close is shown")))
    return script


def _eval(db_path: Path, model: Any, *flags: str) -> Any:
    return run_cli("--db", str(db_path), "eval", "--base-url", model.base_url, "--model", "scripted-eval",
                   "--max-failures", "1", *flags, timeout=600)


def test_the_suite_lists_thirty_miniwob_tasks_and_the_demo_tasks() -> None:
    listed = run_cli("eval", "--list", "--json")
    assert listed.returncode == 0, listed.stderr
    tasks = json.loads(listed.stdout)
    assert sum(task["source"] == "miniwob" for task in tasks) >= 30
    assert {"demo-signin", "demo-shop"} <= {task["name"] for task in tasks}
    words = run_cli("eval", "--list")
    assert "click-checkboxes" in words.stdout and f"{len(tasks)} tasks" in words.stderr
    wrong = run_cli("eval", "--tasks", "click-buton")
    assert wrong.returncode == 2 and "did you mean click-button?" in wrong.stderr


def test_an_endpoint_nobody_answers_is_said_before_any_episode_starts(db_path: Path) -> None:
    dead = run_cli("--db", str(db_path), "eval", "--tasks", "click-test", "--base-url", "http://127.0.0.1:9/v1")
    assert dead.returncode == 2 and "cannot reach the model endpoint" in dead.stderr
    assert "Traceback" not in dead.stderr
    assert not db_path.exists() or not rows(db_path, "select * from batch_jobs")


def test_an_eval_scores_each_episode_by_its_page_and_compares_two_models(model_server, db_path: Path,
                                                                         tmp_path: Path) -> None:
    config = tmp_path / "config" / "goalbot" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[model.prices."scripted-eval"]\ninput = 2.0\noutput = 8.0\n')
    first = tmp_path / "a.json"
    report = tmp_path / "eval.md"
    done = _eval(db_path, model_server(_script()), "--tasks", TASKS, "--episodes", "2", "--out", str(first),
                 "--markdown", str(report))
    assert done.returncode == 0, done.stderr
    assert "6/8 episodes succeeded (75%, 95% interval 41%–93%)" in done.stdout
    assert "click-dialog seed 0: failed" in done.stdout  # what was not reached, and why
    card = json.loads(first.read_text())
    assert [(e["task"], e["seed"], e["success"]) for e in card["episodes"]] == [
        ("click-test", 0, True), ("click-test", 1, True), ("click-test-2", 0, True), ("click-test-2", 1, True),
        ("click-dialog", 0, False), ("click-dialog", 1, False), ("demo-signin", 0, True), ("demo-signin", 1, True)]
    # MiniWoB's own reward, reported by the page, near 1 for a quick right click; the demo's from its record.
    assert all(0.9 < e["reward"] <= 1 for e in card["episodes"][:4])
    assert [e["reward"] for e in card["episodes"][4:]] == [None, None, 1.0, 1.0]
    # Each episode is a stored session of one batch, its goal the page's own instruction.
    stored = {r["id"]: r for r in rows(db_path, "select id, goal, model_calls, cost_usd from sessions")}
    assert {e["session"] for e in card["episodes"]} == set(stored)
    assert stored[card["episodes"][2]["session"]]["goal"] == "Click button ONE."
    assert len(rows(db_path, "select * from batch_jobs where batch_id = ?", card["batch"])) == 8
    assert card["summary"]["model_calls"] == sum(r["model_calls"] for r in stored.values())
    assert card["summary"]["cost_usd"] > 0  # priced from the config file
    markdown = report.read_text()
    assert "click-test    ████████████████████  100%  (2/2)" in markdown
    assert "click-dialog  ░░░░░░░░░░░░░░░░░░░░    0%  (0/2)" in markdown
    assert "| demo-signin | 2 | 2 |" in markdown
    # The chart is a picture beside the report, which draws it: a bar as long as each task's rate.
    assert "![Success by task, with 95% intervals](eval.svg)" in markdown
    chart = ElementTree.fromstring((tmp_path / "eval.svg").read_text(encoding="utf-8"))
    bars = [float(r.get("width", 0)) for r in chart.iter("{http://www.w3.org/2000/svg}rect")
            if r.get("fill") in ("#5b9bd5", "#2f6fdd")]
    assert bars == [360.0, 360.0, 0.0, 360.0, 270.0]  # four tasks, then all of them: 6 of 8

    # Another model presses the wrong one of two buttons and says it pressed the right one: the run
    # ends ok, the page's reward says otherwise, and the episode counts as not reached.
    second = tmp_path / "b.json"
    again = _eval(db_path, model_server(_script(wrong="Click button ONE")), "--tasks", "click-test-2",
                  "--episodes", "2", "--out", str(second), "--json")
    assert again.returncode == 0, again.stderr
    other = json.loads(again.stdout)
    assert [(e["status"], e["success"], e["reward"]) for e in other["episodes"]] == [("ok", False, -1.0)] * 2
    compared = run_cli("eval", "--compare", str(first), str(second))
    assert compared.returncode == 0, compared.stderr
    assert "2 paired episodes (same task, same seed): only A succeeded on 2, only B on 0" in compared.stdout
    assert "B − A: -100 points, within noise (McNemar exact p = 0.500)" in compared.stdout
    assert "6 episodes ran in only one of the two" in compared.stdout
    figures = json.loads(run_cli("eval", "--compare", str(first), str(second), "--json").stdout)
    assert figures["only_first"] == 2 and figures["beyond_noise"] is False
    # Tuning takes the eval's episodes judged by their pages: the plans that earned a reward are
    # examples to follow, those the page said missed (whatever the run thought) are to avoid.
    bank = run_cli("--db", str(db_path), "tune", "--show-bank", "--eval", str(first), "--eval", str(second))
    assert bank.returncode == 0, bank.stderr
    judged = [line for line in bank.stdout.splitlines() if "judged by its page" in line]
    wrong = {e["session"] for e in other["episodes"]}
    assert len(judged) == 10 and sum("an answer that worked" in line for line in judged) == 6
    assert {line.split()[1].split(":")[0] for line in judged if "1 answer turned down" in line} >= wrong
    (tmp_path / "broken.json").write_text("{}")
    refused = run_cli("eval", "--compare", str(first), str(tmp_path / "broken.json"))
    assert refused.returncode == 2 and "is not a scorecard written by goalbot eval --out" in refused.stderr
    tune = run_cli("--db", str(db_path), "tune", "--show-bank", "--eval", str(tmp_path / "broken.json"))
    assert tune.returncode == 2 and "is not a scorecard written by goalbot eval --out" in tune.stderr


def test_a_recipe_rerun_on_a_redesigned_site_is_scored_by_the_patch_the_model_makes(model_server,
                                                                                     db_path: Path) -> None:
    """demo-rerun: a recipe recorded on the demo site (by goalbot's own scripted model, before the
    episode) is rerun after a redesign hid the dark-mode switch behind a button. Only a patch by the
    model under test reaches it; the site's record says whether it did."""
    demo = json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))
    patching = model_server({"patcher": demo["patcher"]})
    done = _eval(db_path, patching, "--tasks", "demo-rerun", "--json")
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    [episode] = card["episodes"]
    assert (episode["success"], episode["reward"], episode["calls"]) == (True, 1.0, 1)  # the patch, nothing else
    assert [[tool["function"]["name"] for tool in r["tools"]] for r in patching.requests] == [["patch"]]
    patched = rows(db_path, "select name, version from recipe_versions order by version")
    assert [(r["name"].startswith("eval-rerun-"), r["version"]) for r in patched] == [(True, 1), (True, 2)]
    # The recording is a session of its own, outside the batch the scorecard counts.
    sessions = rows(db_path, "select id from sessions")
    assert len(sessions) == 2 and card["summary"]["model_calls"] == 1

    # A model that answers the patcher with nothing usable: the rerun stops where the switch was,
    # and the episode is not reached.
    unable = model_server({"patcher": [answer(call("finished", success=True, summary="done"))]})
    missed = _eval(db_path, unable, "--tasks", "demo-rerun", "--json")
    assert missed.returncode == 0, missed.stderr
    [episode] = json.loads(missed.stdout)["episodes"]
    assert (episode["success"], episode["reward"]) == (False, 0.0), episode


def test_an_eval_cut_short_leaves_no_batch_to_resume_against_pages_that_are_gone(model_server, db_path: Path,
                                                                                 tmp_path: Path) -> None:
    script = {**_script(), "server": {"latency_s": 1.5}}  # episodes long enough to be cut mid-way
    model = model_server(script)
    card, report = tmp_path / "card.json", tmp_path / "card.md"
    process = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "eval", "--tasks", "click-test", "--episodes", "4",
         "--workers", "1", "--base-url", model.base_url, "--model", "scripted-eval", "--out", str(card),
         "--markdown", str(report)],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: rows(db_path, "select 1 from batch_jobs where status = 'running' and session_id is not null"),
               120, "the first episode running")
    process.send_signal(signal.SIGINT)  # to the eval's own process only, as `kill -INT` sends it
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in err, err
    # What was done is kept: the scorecard says it was stopped, and every episode either ran or is not run.
    assert "stopped after" in err and "stopped after" in out, err + out
    kept = json.loads(card.read_text(encoding="utf-8"))
    assert kept["stopped"].startswith("stopped after") and len(kept["episodes"]) == 4, kept
    assert all(e["ran"] or e["reason"] == "the eval was stopped before this episode ended" for e in kept["episodes"])
    assert "the eval was stopped after" in report.read_text(encoding="utf-8")
    # The cut episode's session ended with the eval: nothing offers to resume it against pages that are gone.
    cut_sessions = rows(db_path, "select id, status from sessions where status not in ('ok', 'failed')")
    assert cut_sessions and all(s["status"] == "cancelled" for s in cut_sessions), [dict(s) for s in cut_sessions]
    again = run_cli("--db", str(db_path), "resume", cut_sessions[0]["id"])
    assert again.returncode == 2 and "episode of `goalbot eval" in again.stderr, again.stderr
    jobs = rows(db_path, "select batch_id, status, reason from batch_jobs order by n")
    # Its pages were served by the eval that was cut: what had not ended is ended, and says why.
    assert all(job["status"] in ("ok", "failed", "cancelled") for job in jobs), [dict(job) for job in jobs]
    cut = [job for job in jobs if job["status"] == "cancelled"]
    assert cut and all("goalbot eval" in job["reason"] for job in cut), [dict(job) for job in cut]
    resumed = run_cli("--db", str(db_path), "batch", "resume", jobs[0]["batch_id"])
    assert resumed.returncode == 2 and "goalbot eval" in resumed.stderr and "Traceback" not in resumed.stderr
    assert "--tasks click-test --episodes 4" in resumed.stderr, resumed.stderr

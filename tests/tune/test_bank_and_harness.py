"""The harness judges answers as the seed's score says, with words for every miss; the bank turns
what a store recorded — including the failures — into tasks; a profile below its bar is not
pinned without --force. No model here: the store is real, the answers are given."""

from __future__ import annotations

import json
from pathlib import Path

from kit import run_cli
from goalbot.authoring.bank import BankError, build
from goalbot.authoring.harness import Harness
from goalbot.authoring.tasks import Task
from goalbot.events import Actor, Bus, Emitter, EventType
from goalbot.llm.profiles import AuthoringProfile, Metrics, ProgramProfile
from storage import profiles
from storage.db import connect
from storage.recorder import Recorder

import pytest

PAGE = '[1] button "Cancel"\n[2] button "Store changes"\n[3] link "Help"\n[4] link "Help"'
PATCH_TASK = Task(id="t", program="patch", source="test", inputs={"failure": "{}", "page": PAGE},
                  gold={"failed_step": 2, "elements": [{"role": "button", "name": "Store changes"}]})


def test_the_score_follows_the_seed_and_says_what_missed() -> None:
    harness = Harness()
    right = harness.judge(PATCH_TASK, json.dumps({"ops": [{"op": "replace_target", "step": 2, "index": 2}]}), 600)
    assert (right.schema_ok, right.dry_run, right.determinism, right.cost) == (1, 1, 1, 0.1)
    assert right.score == round(0.45 + 0.25 + 0.20 - 0.10 * 0.1, 4)
    wrong = harness.judge(PATCH_TASK, json.dumps({"ops": [{"op": "replace_target", "step": 2, "index": 3}]}), 600)
    assert wrong.dry_run == 0 and wrong.determinism == 0  # "Help" twice: no rerun could find it surely
    assert 'used button "Store changes"; this one uses link "Help"' in wrong.feedback
    assert "could not find it again surely" in wrong.feedback
    broken = harness.judge(PATCH_TASK, "```json\n{\"ops\": [{\"op\": \"explode\"}]}\n```", 600)
    assert broken.schema_ok == 0 and broken.score < 0 and "not a patch" in broken.feedback
    # The weights are the person's to set.
    from goalbot.llm.profiles import Weights
    assert Harness(Weights(dry_run=1, schema=0, determinism=0, cost=0)).judge(
        PATCH_TASK, json.dumps({"ops": [{"op": "replace_target", "step": 2, "index": 2}]}), 600).score == 1


def test_policies_are_judged_by_replaying_the_choice_and_plans_by_the_controls_they_name() -> None:
    harness = Harness()
    seats = [{"row": 1, "price": 80}, {"row": 1, "price": 40}, {"row": 9, "price": 20}]
    task = Task(id="p", program="policy", source="test", inputs={"goal": "the cheapest front-row seat"},
                gold={"policies": {"front": {"hard": [{"field": "row", "op": "==", "value": 1}],
                                             "pick": "argmin", "score": [{"add": 1, "when": {"field": "price",
                                                                                             "op": "exists"}}]}},
                      "candidates": seats, "chosen": 1})
    cheapest_front = {"front": {"hard": [{"field": "row", "op": "==", "value": 1}], "tie_break": ["price_asc"],
                                "pick": "argmax"}}
    assert harness.judge(task, json.dumps(cheapest_front), 100).dry_run == 1
    anywhere = {"cheap": {"tie_break": ["price_asc"]}}
    missed = harness.judge(task, json.dumps(anywhere), 100)
    assert missed.dry_run == 0 and "it picks {'row': 9, 'price': 20}" in missed.feedback, missed.feedback
    plan = Task(id="w", program="workflow", source="test", inputs={"goal": "dark mode", "page": '[1] link "Settings"'},
                gold={"steps": ["Open the settings", "Turn on the night theme"], "elements": ["Settings", "Dark mode"]})
    # Each step that worked is reached by saying it, or by naming the element it began with.
    assert harness.judge(plan, json.dumps(["Open the settings page", "Switch Dark mode on"]), 100).dry_run == 1
    half = harness.judge(plan, json.dumps({"steps": ["Go to Settings"]}), 100)
    assert half.dry_run == 0.5 and "nothing here says 'Turn on the night theme'" in half.feedback, half.feedback
    assert harness.judge(plan, json.dumps([]), 100).schema_ok == 0


def _request(emitter: Emitter, role: str, user: str, answer: dict) -> None:
    kept = {"role": role, "profile": None, "messages": [{"role": "system", "content": "…"},
                                                         {"role": "user", "content": user}],
            "answer": {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": role, "arguments": json.dumps(answer)}}]}}
    emitter.artifact("model_request", "application/json", json.dumps(kept).encode(), name=f"{role} request")


def test_a_failed_patch_and_a_rejected_plan_come_back_as_tasks(db_path: Path, tmp_path: Path) -> None:
    recorder, bus = Recorder(db_path), Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "s-failed")
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, None, goal="turn on dark mode", model="m", base_url="u",
                 max_steps=5)
    _request(emitter, "planner", "Goal: turn on dark mode\n[1] link \"Settings\"", {"steps": ["Click around"]})
    emitter.emit(EventType.PLAN_PROPOSED, Actor.PLANNER, None, steps=["Click around"])
    emitter.emit(EventType.PLAN_REJECTED, Actor.USER, None, steps=["Click around"], feedback="no")
    _request(emitter, "planner", "Goal: turn on dark mode\n[1] link \"Settings\"", {"steps": ["Open Settings"]})
    emitter.emit(EventType.PLAN_PROPOSED, Actor.PLANNER, None, steps=["Open Settings"])
    emitter.emit(EventType.PLAN_APPROVED, Actor.USER, None, steps=["Open Settings", "Turn on Dark mode"], edited=True)
    bad = {"ops": [{"op": "replace_target", "step": 2, "index": 9}], "reason": "guess"}
    _request(emitter, "patcher", json.dumps({"failed_step": 2}) + "\n" + PAGE, bad)
    emitter.emit(EventType.POLICY, Actor.SYSTEM, 2, policy="recipe_patch",
                 message="the model's patch could not be applied: there is no element [9] on the page")
    emitter.emit(EventType.TASK_FAIL, Actor.SYSTEM, None, reason="step 2 failed")
    recorder.close()

    bank = build(db_path)
    assert bank.sessions == ["s-failed"]
    rejected, edited = bank.of("workflow")
    assert rejected.avoid == [["Click around"]] and rejected.gold["steps"] == ["Open Settings", "Turn on Dark mode"]
    assert edited.gold["steps"] == ["Open Settings", "Turn on Dark mode"] and not edited.avoid
    (failed,) = bank.of("patch")
    assert failed.avoid == [bad] and failed.inputs["page"] == PAGE and failed.gold["failed_step"] == 2
    # The round after is told: the same patch again scores nothing, and says why.
    again = Harness().judge(failed, json.dumps(bad), 100)
    assert again.dry_run == 0 and "did not heal the recipe" in again.feedback
    rejected_again = Harness().judge(rejected, json.dumps(["Click around"]), 100)
    assert rejected_again.dry_run == 0 and "turned this very plan down" in rejected_again.feedback

    shown = run_cli("--db", str(db_path), "tune", "--show-bank")
    assert shown.returncode == 0 and "3 tasks, from 1 stored session" in shown.stdout, shown
    assert "patch     s-failed:patch:1  (session s-failed): 1 answer turned down" in shown.stdout, shown.stdout

    broken = tmp_path / "tasks.jsonl"
    broken.write_text('{"program": "patch", "page": "[1] button \\"A\\""}\n')
    with pytest.raises(BankError, match="tasks.jsonl line 1: a patch task needs failure"):
        build(db_path, broken)


def test_a_profile_below_its_bar_is_pinned_only_with_force(db_path: Path) -> None:
    db = connect(db_path)
    low = profiles.save(db, AuthoringProfile(model="m", programs={"patch": ProgramProfile(
        instructions="Patch well.", after=Metrics(score=0.5, tasks=1))}, score=0.5, promoted=False))
    db.close()
    refused = run_cli("--db", str(db_path), "profile", "pin", f"v{low.version}")
    assert refused.returncode == 2 and "below its bar of 0.82" in refused.stderr, refused
    assert "none pinned" in run_cli("--db", str(db_path), "profile", "list").stdout
    forced = run_cli("--db", str(db_path), "profile", "pin", f"v{low.version}", "--force")
    assert forced.returncode == 0 and "below its bar" in forced.stdout
    shown = run_cli("--db", str(db_path), "profile", "show", "v1").stdout
    assert "authoring-profile/v1 (pinned)" in shown and "Patch well." in shown
    for args, said in [(("show", "v7"), "no authoring-profile/v7"), (("pin", "seven"), "bad authoring profile"),
                       (("diff", "v1", "v2"), "no authoring-profile/v2")]:
        result = run_cli("--db", str(db_path), "profile", *args)
        assert result.returncode == 2 and said in result.stderr, (args, result.stderr)


def test_a_profile_replaces_the_parts_it_was_tuned_for_and_shows_its_examples() -> None:
    from goalbot.llm.authored import AuthoredPrompts, prompt_file, system_prompt

    own = system_prompt("planner")
    assert prompt_file("planner").strip() in own and prompt_file("planner-policies").strip() in own
    authored = AuthoredPrompts(profile="authoring-profile/v3", instructions={"planner-policies": "Pick by the rules."},
                               examples={"planner-policies": ['goal: the cheapest\npolicies that worked: {"c": {}}']})
    tuned = system_prompt("planner", authored)
    # The steps' part stays goalbot's own; the policies' part is the profile's, with its example.
    assert prompt_file("planner").strip() in tuned and prompt_file("planner-policies").strip() not in tuned
    assert "Pick by the rules." in tuned and "policies that worked" in tuned
    assert system_prompt("patcher", authored) == system_prompt("patcher")


def test_the_page_a_role_saw_is_read_back_as_its_elements() -> None:
    from goalbot.authoring.tasks import page_elements

    page = ('# Sign in\n[1] textbox type=email "Email"\n*[2] button "Sign in"\n  [3] link "The \\"best\\" deal" '
            'href=/x\n[4] checkbox checked\nDemo account: [5] is not an element')
    assert {i: (e.role, e.name) for i, e in page_elements(page).items()} == {
        1: ("textbox", "Email"), 2: ("button", "Sign in"), 3: ("link", 'The "best" deal'), 4: ("checkbox", "")}

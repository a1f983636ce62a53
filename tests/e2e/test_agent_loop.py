"""The agent loop against the test site, as seed 000 §6 tells it: one click; settings then dark
mode in 3–5 steps; a button that does not exist. Real Chromium, the scripted model over HTTP, a
real store; the site's own request log says what really happened."""

from __future__ import annotations

from pathlib import Path

from kit import answer, call, demo_script, element, finished, plan, run_goal, types, verdict


def test_one_click_in_the_middle_of_the_screen(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Click the button in the middle of the screen")],
        # A vision model points at pixels: the middle of the 1280×800 viewport.
        "navigator": [answer(call("click", x=640, y=400)), finished(summary="clicked Start")],
        "validator": [verdict(True, "the page says Started!"),
                      verdict(True, "Started! is shown", answer_text="clicked Start")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("center"),
                              "click the button in the middle of the screen")
    assert result.returncode == 0, result.stderr
    assert hardsite.reached("/api/start", "POST") == ['{"clicked":true}']
    assert types(events).count("STEP_START") == 1
    statuses = [e for e in events if e["type"] == "GOAL_STATUS"]
    assert statuses[-1]["achieved"] is True and statuses[-1]["progress_percent"] == 100


def test_a_one_step_goal_costs_three_model_calls_and_the_validator_judges_the_goal(
        hardsite, model_server, db_path: Path) -> None:
    """The navigator may end its answer with `finished`; after the plan's last step one verdict
    judges the step and the goal together — and a no sends the run back to the planner."""
    hardsite.reset()
    goal = "turn on dark mode and save"
    script = {
        "planner": [plan("Turn on Dark mode and save"), plan("Save the settings")],
        "navigator": [answer(call("click", index=element("Dark mode")), call("finished", success=True, summary="switched")),
                      answer(call("click", index=element("Save")), call("finished", success=True, summary="saved"))],
        "validator": [verdict(False, "the switch is on but nothing says saved"),
                      verdict(True, "'Saved' is shown", answer_text="Dark mode is on and saved.")],
    }
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("display"), goal)
    assert result.returncode == 0, result.stderr
    roles = [r["role"] for r in model.requests]
    assert roles == ["planner", "navigator", "validator"] * 2
    first_verdict = model.requests[2]["messages"][-1]["content"]
    assert f"The whole goal to judge: {goal}" in first_verdict and "the plan's last" in first_verdict
    failed = next(e for e in events if e["type"] == "STEP_FAIL")
    assert failed["reason"] == "the goal is not reached: the switch is on but nothing says saved"
    replan = model.requests[3]["messages"][-1]["content"]
    assert "the goal is not reached: the switch is on but nothing says saved" in replan
    assert events[-1]["type"] == "TASK_OK" and events[-1]["answer"] == "Dark mode is on and saved."


def test_settings_then_dark_mode_in_four_steps(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    steps = ["Open the settings", "Open the Display section", "Turn on Dark mode", "Save the settings"]
    script = {
        "planner": [plan(*steps)],
        "navigator": [
            answer(call("click", index=element("Settings"))), finished(summary="settings open"),
            answer(call("click", index=element("Display"))), finished(summary="display open"),
            answer(call("click", index=element("Dark mode"))), finished(summary="dark mode checked"),
            answer(call("click", index=element("Save"))), finished(summary="saved"),
        ],
        "validator": [verdict(True, f"{s}: done") for s in steps]
        + [verdict(True, "dark mode is on and saved", answer_text="Dark mode is on.")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("home"),
                              "open the settings and turn on dark mode")
    assert result.returncode == 0, result.stderr
    assert 3 <= types(events).count("STEP_OK") <= 5
    assert hardsite.posted["display"] == {"dark": True}
    progress = [e["progress_percent"] for e in events if e["type"] == "GOAL_STATUS"]
    assert progress == sorted(progress) and progress[-1] == 100  # goal status after every step
    assert len(progress) == 1 + len(steps) + 1


def test_a_button_that_does_not_exist(hardsite, model_server, db_path: Path) -> None:
    """Two tries fail, the third identical click is refused by the guard, and after three failed
    steps on a page that never changed the run stops cleanly with nobody to ask."""
    hardsite.reset()
    missing = answer(call("click", index=42))
    give_up = finished(False, "there is no Launch button")
    script = {
        "planner": [plan("Click the Launch button")] * 3,
        "navigator": [missing, missing, missing, give_up, missing, give_up, missing, give_up],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("center"),
                              "click the Launch button")
    assert result.returncode == 1
    fails = [e for e in events if e["type"] == "ACT_FAIL"]
    assert [f["error"] for f in fails[:3]] == ["TargetNotFound", "TargetNotFound", "Refused"]
    policies = [e["policy"] for e in events if e["type"] == "POLICY" and e["policy"] != "min_interval"]
    assert policies == ["repeat_click", "repeat_click", "repeat_click", "no_progress"]
    assert types(events).count("STEP_FAIL") == 3
    denied = [e for e in events if e["type"] == "APPROVAL_DENIED"]
    assert denied and denied[0]["kind"] == "no_progress" and denied[0]["by"] == "nobody to ask"
    assert events[-1]["type"] == "TASK_FAIL" and "no progress" in events[-1]["reason"]
    assert "Traceback" not in result.stdout + result.stderr


def test_a_validator_rejection_is_re_planned_and_then_succeeds(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Turn on Dark mode"), plan("Save the settings")],
        "navigator": [answer(call("click", index=element("Dark mode"))), finished(summary="checked"),
                      answer(call("click", index=element("Save"))), finished(summary="saved")],
        "validator": [verdict(False, "the box is checked but nothing says it was saved", 0.6),
                      verdict(True, "Display settings saved."),
                      verdict(True, "dark mode saved")],
    }
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and keep it")
    assert result.returncode == 0, result.stderr
    assert types(events).count("PLAN_PROPOSED") == 2
    second_plan = [r for r in model.requests if r["role"] == "planner"][1]
    assert "nothing says it was saved" in second_plan["messages"][-1]["content"]
    assert hardsite.posted["display"] == {"dark": True}


def test_planning_interval_re_plans_after_every_step(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        # The second plan keeps what was approved, so nobody is asked again.
        "planner": [plan("Turn on Dark mode", "Save the settings"), plan("Save the settings")],
        "navigator": [answer(call("click", index=element("Dark mode"))), finished(),
                      answer(call("click", index=element("Save"))), finished()],
        "validator": [verdict(True, "checked"), verdict(True, "saved"), verdict(True, "done")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("display"),
                              "turn on dark mode", "--planning-interval", "1")
    assert result.returncode == 0, result.stderr
    assert types(events).count("PLAN_PROPOSED") == 2
    approvals = [e["by"] for e in events if e["type"] == "PLAN_APPROVED"]
    assert approvals == ["--yes", "unchanged since approved"]
    assert [e["asks_approval"] for e in events if e["type"] == "PLAN_PROPOSED"] == [False, False]
    from kit import run_cli
    report = run_cli("--db", str(db_path), "report").stdout
    assert "- re-plan kept the approved steps: Save the settings" in report


def test_max_actions_per_step_and_a_page_that_changes_under_the_batch(
    hardsite, model_server, db_path: Path
) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Go to the display settings")],
        # Three actions in one answer: the first changes the page, so the rest must not run blind.
        "navigator": [answer(call("click", index=element("Settings")), call("click", index=1),
                             call("click", index=2)),
                      answer(call("click", index=element("Display"))), finished()],
        "validator": [verdict(True, "display page open"), verdict(True, "done")],
    }
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("home"), "open the display settings",
                              "--max-actions-per-step", "2")
    assert result.returncode == 0, result.stderr
    assert types(events).count("ACT_START") == 2  # one from each answer
    second = [r for r in model.requests if r["role"] == "navigator"][1]["messages"][-1]["content"]
    assert "only the first 2 actions of that answer ran; 1 left out" in second
    assert "the page changed; the 1 remaining actions of that answer were not run" in second


def test_low_confidence_three_times_waits_and_looks_again(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    unsure = 0.2
    script = {
        "planner": [plan("Turn on Dark mode", "Save the settings", "See that it was saved", confidence=unsure)],
        "navigator": [answer(call("click", index=element("Dark mode"))), finished(),
                      answer(call("click", index=element("Save"))), finished(), finished()],
        "validator": [verdict(True, "probably checked", unsure), verdict(True, "probably saved", unsure),
                      verdict(True, "saved")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("display"), "turn on dark mode")
    assert result.returncode == 0, result.stderr
    fired = [i for i, e in enumerate(events) if e["type"] == "POLICY" and e["policy"] == "low_confidence"]
    assert len(fired) == 1  # plan, step 1, step 2: three in a row
    assert events[fired[0] + 1]["type"] == "OBSERVATION"  # then it looks at the page again


def test_min_interval_spaces_the_actions_after_the_burst(hardsite, model_server, db_path: Path) -> None:
    from datetime import datetime

    from kit import rows

    hardsite.reset()
    script = {
        "planner": [plan("Turn on Dark mode and save")],
        "navigator": [answer(call("click", index=element("Dark mode")), call("click", index=element("Save"))),
                      finished()],
        "validator": [verdict(True, "saved"), verdict(True, "saved")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("display"), "turn on dark mode",
                              "--min-interval", "3", "--burst", "1")
    assert result.returncode == 0, result.stderr
    starts = [datetime.fromisoformat(r["ts"]) for r in rows(db_path, "select ts from events where type = 'ACT_START'")]
    # ACT_START comes after the element's evidence is read, which takes longer on a busy machine:
    # the interval is long enough for that not to matter.
    assert (starts[1] - starts[0]).total_seconds() >= 2.5
    waits = [e for e in events if e["type"] == "POLICY" and e["policy"] == "min_interval"]
    assert waits and waits[0]["wait_s"] > 0  # how long depends on how long the click took


def test_the_report_tells_what_was_done_retried_decided_and_saved(hardsite, model_server, db_path: Path) -> None:
    from kit import rows, run_cli

    hardsite.reset()
    script = {
        "planner": [plan("Note the price", "Add the kit to the cart"), plan("Add the kit to the cart")],
        "navigator": [answer(call("save_data", key="price", value="₩18,900")), finished(summary="noted"),
                      answer(call("click", index=element("Add to cart"))), finished(summary="added"),
                      answer(call("click", index=99)), finished(summary="added for real")],
        "validator": [verdict(True, "price noted"), verdict(False, "the cart still says empty", 0.5),
                      verdict(True, "Cart: 1 × Kimchi stew kit", answer_text="The kit costs ₩18,900 and is in the cart.")],
    }
    result, _ = run_goal(db_path, model_server(script), hardsite.page("shop"), "price the kit and add it to the cart")
    assert result.returncode == 0, result.stderr
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    assert f"goalbot report {session_id}" in result.stderr
    report = run_cli("--db", str(db_path), "report", session_id).stdout
    assert rows(db_path, "select report from sessions")[0]["report"] == report  # stored with the session
    assert "- Result: ok" in report
    assert "## Answer\n\nThe kit costs ₩18,900 and is in the cart." in report
    assert "2. Add the kit to the cart — failed: the goal is not reached: the cart still says empty; re-planned" in report
    assert "click failed (TargetNotFound)" in report and "the validator rejected: the cart still says empty" in report
    assert "- plan approved by --yes: Note the price; Add the kit to the cart" in report
    assert "## Saved data\n\n- price: ₩18,900" in report
    assert "- Steps: 3 (2 passed) · model calls: 11 ·" in report
    assert run_cli("--db", str(db_path), "report").stdout == report  # the latest, by default


def test_a_two_step_plan_is_half_done_after_its_first_step_and_whole_after_its_second(
        site, model_server, db_path: Path) -> None:
    result, events = run_goal(db_path, model_server(demo_script()), f"{site.url}/login", "sign in and turn on dark mode")
    assert result.returncode == 0, result.stderr
    # After the plan's own estimate: each step's share, then the goal reached.
    assert [e["progress_percent"] for e in events if e["type"] == "GOAL_STATUS"][1:] == [50, 100, 100]

"""goalbot against a real model on this machine: SmolLM2-135M behind llama-cpp-python's server. Its
success will be near nothing — that is the model. What is tested is the whole real path: the
server's chat template and goalbot's dialects round-trip, every answer is acted on or refused with
a reason, refusals of parameters are adapted to once and remembered, the limits stop it, and every
session ends with a terminal status and no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goalbot.demo.goals import DEMO_GOAL
from kit import rows, run_cli

pytestmark = [pytest.mark.xdist_group("local_model"), pytest.mark.timeout(1500)]

TERMINAL = {"ok", "failed", "cancelled"}
# What an answer leads to when it is used: a plan, an action tried, or a verdict.
USED = {"PLAN_PROPOSED", "ACT_START", "ACT_OK", "ACT_FAIL", "STEP_OK", "STEP_FAIL", "VALIDATE_OK", "VALIDATE_FAIL",
        "EXTRACTED", "TASK_OK", "TASK_FAIL", "TASK_CANCEL"}


def _run(db_path: Path, base_url: str, url: str, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    done = run_cli("--db", str(db_path), "run", DEMO_GOAL, "--url", url, "--base-url", base_url, "--model", "smollm2",
                   "--yes", "--no-tui", "--max-steps", "2", "--max-calls", "1", "--model-timeout", "600",
                   "--model-retries", "0", "--max-answer-tokens", "300", *flags, timeout=1200)
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [{"type": r["type"], **json.loads(r["data"])}
              for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]
    return done, events


def _ends_cleanly(done: Any, events: list[dict[str, Any]], db_path: Path) -> None:
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    status = rows(db_path, "select status from sessions order by started_at desc limit 1")[0]["status"]
    assert status in TERMINAL
    assert events[-1]["type"] in {"TASK_OK", "TASK_FAIL", "TASK_CANCEL"}
    calls = [i for i, e in enumerate(events) if e["type"] == "LLM_CALL"]
    assert len(calls) == 1  # --max-calls 1, and nobody to allow more: the budget stops the run
    if events[-1]["type"] == "TASK_CANCEL":
        assert events[-1]["reason"].startswith("stopped at the budget")
    for i in calls:  # each answer was used, or refused with why, before the next question
        after = next((e for e in events[i + 1:] if e["type"] in USED | {"LLM_ERROR", "LLM_CALL", "POLICY"}), None)
        assert after is not None and after["type"] != "LLM_CALL", events[i:]
        if after["type"] == "LLM_ERROR":
            assert after["message"].startswith("unusable answer: ")


def test_doctor_and_the_tool_call_path(local_model: str, site, db_path: Path) -> None:
    doctor = run_cli("doctor", "--base-url", local_model, "--model", "smollm2")
    assert "smollm2" in doctor.stdout and "Traceback" not in doctor.stderr
    done, events = _run(db_path, local_model, f"{site.url}/login")
    _ends_cleanly(done, events, db_path)
    # llama-cpp-python's server refuses tool_choice "required" with an HTTP 500: adapted to at
    # once, not retried five times, and remembered for the next run and shown by doctor.
    errors = [e for e in events if e["type"] == "LLM_ERROR"]
    assert sum("refuses tool_choice" in e["message"] for e in errors) <= 1
    assert not any("gave up after" in e["message"] for e in errors)
    again = run_cli("doctor", "--base-url", local_model, "--model", "smollm2")
    assert "smollm2: refuses tool_choice: requests are sent without it" in again.stdout


def test_the_json_dialect(local_model: str, site, db_path: Path) -> None:
    done, events = _run(db_path, local_model, f"{site.url}/login", "--dialect", "json")
    _ends_cleanly(done, events, db_path)
    assert {e.get("dialect") for e in events if e["type"] == "LLM_CALL"} == {"json"}


def test_structured_output_held_to_the_answer_schema(local_model: str, site, db_path: Path, tmp_path: Path) -> None:
    done, events = _run(db_path, local_model, f"{site.url}/login", "--dialect", "structured")
    _ends_cleanly(done, events, db_path)
    # The OpenAI form of response_format is refused; llama.cpp's own form (a JSON schema turned
    # into a grammar) is used from then on, in this run and the next.
    assert any("asking again with response_format json_object" in e["message"]
               for e in events if e["type"] == "LLM_ERROR")
    remembered = json.loads((tmp_path / "data" / "goalbot" / "endpoints.json").read_text())  # the test's own home
    assert remembered[f"{local_model} smollm2"]["response_format"] == "json_object"
    next_done, next_events = _run(db_path, local_model, f"{site.url}/login", "--dialect", "structured",
                                  "--max-steps", "1")
    _ends_cleanly(next_done, next_events, db_path)
    assert not any("response_format" in e.get("message", "") for e in next_events if e["type"] == "LLM_ERROR")


def test_eval_on_three_miniwob_tasks(local_model: str, db_path: Path, tmp_path: Path) -> None:
    report = tmp_path / "eval.md"
    done = run_cli("--db", str(db_path), "eval", "--tasks", "click-test,click-test-2,focus-text", "--workers", "1",
                   "--base-url", local_model, "--model", "smollm2", "--dialect", "json", "--max-calls", "1",
                   "--max-steps", "2", "--max-answer-tokens", "300", "--model-timeout", "600",
                   "--markdown", str(report), "--json", timeout=1200)
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    assert [e["task"] for e in card["episodes"]] == ["click-test", "click-test-2", "focus-text"]
    assert all(e["status"] in TERMINAL and e["session"] for e in card["episodes"])
    assert card["summary"]["model_calls"] == 3 and card["summary"]["tokens"] > 0  # --max-calls 1 an episode
    assert "## Success by task" in report.read_text()

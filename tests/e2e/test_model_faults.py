"""A flaky endpoint does not end the run: timeouts, dropped connections, 429 and 5xx are retried
and every attempt is stored; a rejected key stops at once. Whole runs of the demo goal through a
real HTTP server that misbehaves on cue."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kit import demo_script, rows, run_goal

DEMO_GOAL = "sign in and turn on dark mode"


def _run(site, model_server, db_path: Path, script: dict[str, Any], *flags: str):
    model = model_server(script)
    result, events = run_goal(db_path, model, f"{site.url}/login", DEMO_GOAL, *flags)
    return result, events, model


def _with_fault(role: str, *faults: dict[str, Any]) -> dict[str, Any]:
    script = demo_script()
    script[role] = [*faults, *script[role]]
    return script


@pytest.mark.parametrize(
    ("role", "fault", "status", "says"),
    [
        ("planner", {"fault": "server_error", "status": 503}, 503, "failed (HTTP 503)"),
        ("navigator", {"fault": "server_error"}, 500, "failed (HTTP 500)"),
        ("navigator", {"fault": "drop"}, None, "connection to"),
        ("validator", {"fault": "truncated"}, None, "not valid JSON"),
    ],
    ids=["planner-503", "navigator-500", "dropped-connection", "truncated-json"],
)
def test_a_fault_is_retried_and_the_run_finishes(
    site, model_server, db_path: Path, role: str, fault: dict[str, Any], status: int | None, says: str
) -> None:
    result, events, _ = _run(site, model_server, db_path, _with_fault(role, fault, fault))
    assert result.returncode == 0, result.stderr
    errors = [e for e in events if e["type"] == "LLM_ERROR"]
    assert [e["attempt"] for e in errors] == [1, 2] and all(e["role"] == role for e in errors)
    assert all(e["status"] == status and says in e["message"] for e in errors), errors
    assert all(e["retry_in_s"] > 0 and "trying again in" in e["message"] for e in errors)
    answered = next(e for e in events if e["type"] == "LLM_CALL" and e["role"] == role)
    assert answered["attempt"] == 3
    assert events[-1]["type"] == "TASK_OK"
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    session = rows(db_path, "select * from sessions")[0]
    assert session["status"] == "ok" and session["model_errors"] == 2


def test_rate_limit_waits_as_long_as_retry_after_says(site, model_server, db_path: Path) -> None:
    script = _with_fault("navigator", {"fault": "rate_limit", "retry_after": 2})
    result, events, _ = _run(site, model_server, db_path, script)
    assert result.returncode == 0, result.stderr
    error = next(e for e in events if e["type"] == "LLM_ERROR")
    assert error["status"] == 429 and error["retry_in_s"] == 2.0
    assert "rate limiting" in error["message"]
    stored = rows(db_path, "select type, ts from events order by seq")
    at = next(i for i, r in enumerate(stored) if r["type"] == "LLM_ERROR")
    gap = datetime.fromisoformat(stored[at + 1]["ts"]) - datetime.fromisoformat(stored[at]["ts"])
    assert gap.total_seconds() >= 2.0
    assert events[-1]["type"] == "TASK_OK"


def test_a_hanging_endpoint_times_out_and_is_retried(site, model_server, db_path: Path) -> None:
    script = _with_fault("planner", {"fault": "hang", "seconds": 5})
    result, events, _ = _run(site, model_server, db_path, script, "--model-timeout", "1.5")
    assert result.returncode == 0, result.stderr
    error = next(e for e in events if e["type"] == "LLM_ERROR")
    assert "did not answer within 1.5s" in error["message"] and error["attempt"] == 1
    assert events[-1]["type"] == "TASK_OK"


def test_retries_run_out_with_one_clear_line(site, model_server, db_path: Path) -> None:
    script = _with_fault("planner", *[{"fault": "server_error"}] * 3)
    result, events, model = _run(site, model_server, db_path, script, "--model-retries", "2")
    assert result.returncode == 1
    assert len(model.requests) == 3
    assert [e["attempt"] for e in events if e["type"] == "LLM_ERROR"] == [1, 2, 3]
    last = [e for e in events if e["type"] == "LLM_ERROR"][-1]
    assert last["retry_in_s"] is None
    assert "failed (HTTP 500)" in result.stderr and "(gave up after 3 attempts)" in result.stderr
    assert events[-1]["type"] == "TASK_FAIL"


def test_a_rejected_key_is_not_retried(site, model_server, db_path: Path) -> None:
    result, events, model = _run(site, model_server, db_path, _with_fault("planner", {"fault": "auth"}),
                                    "--api-key", "sk-test-77")
    assert result.returncode == 1
    assert len(model.requests) == 1
    assert f"the API key was rejected by {model.base_url} (HTTP 401)" in result.stderr
    # (the run's last look, with its picture, is the evidence every run that fails ends on)
    assert [e["type"] for e in events if e["type"] != "OBSERVATION"][-2:] == ["LLM_ERROR", "TASK_FAIL"]

"""A model that answers garbage ends the run with a clear event and a stored session, never a
traceback."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, demo_script, rows, run_cli, run_goal

PLAN = answer(call("plan", observation="sign-in page", steps=["Sign in"], progress_percent=0, confidence=0.7))


def _run(site, model_server, db_path: Path, script: dict[str, Any]) -> tuple[Any, list[dict[str, Any]], Any]:
    model = model_server(script)
    result, events = run_goal(db_path, model, f"{site.url}/login", "sign in", "--max-failures", "2")
    return result, events, rows(db_path, "select * from sessions")[0]


def test_planner_prose_instead_of_a_plan(site, model_server, db_path: Path) -> None:
    prose = [{"content": "Sure! First I will sign in."}, {"content": "I said: sign in."},
             {"content": "Signing in is the plan."}]
    script = {"planner": prose}
    result, events, session = _run(site, model_server, db_path, script)
    assert result.returncode == 1
    assert session["status"] == "failed"
    assert "planner's answers could not be used" in session["finish_reason"]
    errors = [e for e in events if e["type"] == "LLM_ERROR"]
    # Asked once and corrected twice (the default --answer-retries), each bad answer on record.
    assert len(errors) == 3 and all("no tool call" in e["message"] for e in errors)
    assert events[-1]["type"] == "TASK_FAIL"
    assert "planner's answers could not be used" in result.stderr


@pytest.mark.parametrize(
    ("bad_call", "expected"),
    [
        (call("teleport", to="settings"), "there is no tool `teleport`"),
        ({"name": "click", "arguments": '{"index": 1,'}, "not valid JSON"),
        (call("click"), "give an element `index`"),
    ],
    ids=["unknown-tool", "broken-json", "missing-target"],
)
def test_unusable_navigator_answer(site, model_server, db_path: Path, bad_call: dict[str, Any], expected: str) -> None:
    script = {"planner": [PLAN], "navigator": [answer(bad_call)] * 3}
    result, events, session = _run(site, model_server, db_path, script)
    assert result.returncode == 1
    assert session["status"] == "failed"
    failures = [e for e in events if e["type"] == "ACT_FAIL"]
    assert failures and expected in failures[0]["message"] and failures[0]["error"] == "BadAnswer"
    assert "STEP_FAIL" in [e["type"] for e in events]
    assert events[-1]["type"] == "TASK_FAIL"


def test_index_that_does_not_exist(site, model_server, db_path: Path) -> None:
    script = {
        "planner": [PLAN],
        "navigator": [answer(call("click", index=99)),
                      answer(call("finished", success=False, summary="no such button"))],
    }
    result, events, session = _run(site, model_server, db_path, script)
    assert result.returncode == 1
    failure = next(e for e in events if e["type"] == "ACT_FAIL")
    assert failure["error"] == "TargetNotFound"
    assert "there is no element [99]" in failure["message"] and "[1]–[3]" in failure["message"]
    step_fail = next(e for e in events if e["type"] == "STEP_FAIL")
    assert step_fail["reason"] == "no such button"
    # The failure went back to the planner, whose (exhausted) script ends the run cleanly.
    assert [e["type"] for e in events].count("PLAN_PROPOSED") == 1
    assert session["status"] == "failed" and events[-1]["type"] == "TASK_FAIL"


class _GoneAfterTheFirstLook(BaseHTTPRequestHandler):
    """An endpoint that answers goalbot's first look (its model list), then goes away for good."""

    def do_GET(self) -> None:
        body = b'{"object": "list", "data": [{"id": "x"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.server.socket.close()  # type: ignore[attr-defined]  # nothing listens here any more

    def log_message(self, *args: object) -> None:
        pass


def test_an_endpoint_that_goes_away_mid_run(site, db_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GoneAfterTheFirstLook)
    port = server.server_address[1]
    threading.Thread(target=server.handle_request, daemon=True).start()
    result = run_cli("--db", str(db_path), "run", "sign in", "--url", f"{site.url}/login",
                     "--no-tui", "--yes", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "x",
                     "--model-retries", "1")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert (f"session {rows(db_path, 'select id from sessions')[0]['id']} failed: cannot reach the "
            f"model endpoint http://127.0.0.1:{port}/v1 (gave up after 2 attempts)") in result.stderr
    session = rows(db_path, "select * from sessions")[0]
    assert session["status"] == "failed"
    assert rows(db_path, "select type from events order by id")[-1]["type"] == "TASK_FAIL"


class _RejectingEndpoint(BaseHTTPRequestHandler):
    """An endpoint that refuses the key and, as some do, echoes it back."""

    def do_POST(self) -> None:
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


def test_rejected_api_key_stops_at_once_and_is_not_stored(site, db_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RejectingEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        result = run_cli("--db", str(db_path), "run", "sign in", "--url", f"{site.url}/login",
                         "--no-tui", "--yes", "--base-url", base_url, "--model", "m",
                         "--api-key", "sk-live-secret-4242")
    finally:
        server.shutdown()
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"the API key was rejected by {base_url} (HTTP 401)" in result.stderr
    assert b"sk-live-secret-4242" not in b"".join(p.read_bytes() for p in db_path.parent.iterdir())
    assert "sk-live-secret-4242" not in result.stdout + result.stderr


def test_a_corrected_answer_is_used(site, model_server, db_path: Path) -> None:
    """The model is shown its unusable answer, what was wrong, and the tools again; its next
    answer carries the run on."""
    script = demo_script()
    broken = {"tool_calls": [{"name": "type", "arguments": '{"index": 1, "text": "demo@example.com"'}]}
    script["navigator"].insert(0, broken)
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url", f"{site.url}/login",
                     "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted")
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    retry = [r for r in model.requests if r["role"] == "navigator"][1]["messages"]
    assert retry[-3]["role"] == "assistant" and retry[-3]["tool_calls"][0]["function"]["name"] == "type"
    assert retry[-2]["role"] == "tool" and "not valid JSON" in retry[-2]["content"]
    correction = retry[-1]["content"]
    assert correction.startswith("Your answer could not be used: the arguments of `type` are not valid JSON")
    assert "- click(index, x, y): Click an element" in correction  # the schema, again
    [error] = [json.loads(r["data"]) for r in rows(db_path, "select data from events where type = 'LLM_ERROR'")]
    assert error["role"] == "navigator" and "unusable answer" in error["message"]

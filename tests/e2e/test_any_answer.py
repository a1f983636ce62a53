"""Any answer a model server sends: understood when it has one meaning, else an LLM_ERROR and
another try — never "unexpected error". Whole demo runs through the real `openai` client against
a server that sends exactly the bodies below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, demo_script, rows, run_goal

DEMO_GOAL = "sign in and turn on dark mode"


def _first_plan() -> dict[str, Any]:
    return demo_script()["planner"][0]["tool_calls"][0]["arguments"]


def _completion(message: Any, **extra: Any) -> dict[str, Any]:
    return {"completion": {"id": "x", "object": "chat.completion", "model": "scripted",
                           "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 5}, **extra}}


def _plan_message(arguments: Any, **call_fields: Any) -> dict[str, Any]:
    function = {"name": "plan", "arguments": arguments}
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": function, **call_fields}]}


def _run(site, model_server, db_path: Path, planner: list[dict[str, Any]], *flags: str):
    script = demo_script()
    script["planner"] = planner
    model = model_server(script)
    result, events = run_goal(db_path, model, f"{site.url}/login", DEMO_GOAL, "--min-interval", "0", *flags)
    return result, events, model


PLAN_JSON = json.dumps(_first_plan())
UNDERSTOOD = {
    "arguments-as-object": _completion(_plan_message(_first_plan())),
    "id-missing": {"message": {"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "plan", "arguments": PLAN_JSON}}]}},
    "id-null": _completion(_plan_message(PLAN_JSON, id=None)),
    "content-as-parts": {"message": {"role": "assistant", "content": [
        {"type": "text", "text": "Here is the plan: "}, {"type": "text", "text": PLAN_JSON}]}},
    "usage-empty": _completion(_plan_message(PLAN_JSON), usage={}),
    "usage-null-counts": _completion(_plan_message(PLAN_JSON), usage={"prompt_tokens": None, "completion_tokens": None}),
    "usage-fractional": _completion(_plan_message(PLAN_JSON), usage={"prompt_tokens": 10.5, "completion_tokens": 2.2}),
    "usage-strings": _completion(_plan_message(PLAN_JSON), usage={"prompt_tokens": "12", "completion_tokens": "x"}),
    "usage-absurd": _completion(_plan_message(PLAN_JSON), usage={"prompt_tokens": 2**70, "completion_tokens": -5}),
    "model-a-number": _completion(_plan_message(PLAN_JSON), model=7),
    "legacy-function-call": {"message": {"role": "assistant", "function_call": {"name": "plan", "arguments": PLAN_JSON}}},
    "sse-stream": {"body": "".join(
        f"data: {json.dumps(chunk)}\n\n" for chunk in [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                {"index": 0, "id": "c1", "function": {"name": "plan", "arguments": PLAN_JSON[:40]}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": PLAN_JSON[40:]}}]}, "finish_reason": "tool_calls"}]},
        ]) + "data: [DONE]\n\n", "content_type": "text/event-stream"},
    "optional-nulls": answer(call("plan", **{**_first_plan(), "final_answer": None, "question": None,
                                            "reasoning": None, "observation": None, "done": None})),
}


@pytest.mark.parametrize("entry", list(UNDERSTOOD.values()), ids=list(UNDERSTOOD))
def test_an_answer_with_one_meaning_is_understood(site, model_server, db_path: Path, entry: dict[str, Any]) -> None:
    result, events, _ = _run(site, model_server, db_path, [entry])
    assert result.returncode == 0, result.stderr
    assert not [e for e in events if e["type"] == "LLM_ERROR" and e["role"] == "planner"]
    session = rows(db_path, "select status, tokens_in from sessions")[0]
    assert session["status"] == "ok" and 0 <= session["tokens_in"] < 2**63


GOOD = demo_script()["planner"][0]
UNUSABLE = {
    "html-page-200": {"body": "<!doctype html><html><body>Welcome to nginx</body></html>",
                      "content_type": "text/html"},
    "json-array": {"body": [1, 2, 3]},
    "json-string": {"body": '"hello"'},
    "json-null": {"body": "null"},
    "no-choices": {"body": {"id": "x", "choices": []}},
    "choice-not-object": {"body": {"choices": ["plan"]}},
    "message-null": _completion(None),
    "name-missing": _completion({"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": PLAN_JSON}}]}),
    "name-null": _completion(_plan_message(PLAN_JSON) | {"tool_calls": [
        {"id": "c", "function": {"name": None, "arguments": PLAN_JSON}}]}),
    "arguments-deeply-nested": _completion(_plan_message('{"steps": ' + "[" * 100_000 + "]" * 100_000 + "}")),
    "arguments-5000-digit-int": _completion(_plan_message('{"progress_percent": ' + "9" * 5000 + "}")),
    "body-deeply-nested": {"body": "[" * 100_000 + "]" * 100_000},
    "body-5000-digit-int": {"body": '{"choices": [], "x": ' + "7" * 5000 + "}"},
    "invalid-utf8": {"body_hex": "7b2263686f69636573223a205b7b226d657373616765223a207b22636f6e74656e74223a2022ff fe 227d7d5d7d".replace(" ", "")},
    "error-object-200": {"body": {"error": {"message": "model overloaded"}}},
    "sse-garbage": {"body": "data: {not json}\n\ndata: [DONE]\n\n", "content_type": "text/event-stream"},
    "empty-body": {"body": ""},
}


@pytest.mark.parametrize("entry", list(UNUSABLE.values()), ids=list(UNUSABLE))
def test_an_unusable_answer_is_an_llm_error_and_asked_again(site, model_server, db_path: Path,
                                                             entry: dict[str, Any]) -> None:
    result, events, model = _run(site, model_server, db_path, [entry, GOOD])
    assert result.returncode == 0, result.stderr
    assert "unexpected error" not in result.stderr
    errors = [e for e in events if e["type"] == "LLM_ERROR" and e["role"] == "planner"]
    assert len(errors) == 1, [e["message"] for e in errors]
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


@pytest.mark.parametrize("empty", [answer(call("plan")), _completion(_plan_message(None)),
                                   answer(call("plan", steps=[], done=False))],
                         ids=["no-arguments", "null-arguments", "no-steps"])
def test_an_empty_plan_is_asked_for_again(site, model_server, db_path: Path, empty: dict[str, Any]) -> None:
    result, events, model = _run(site, model_server, db_path, [empty, GOOD])
    assert result.returncode == 0, result.stderr
    error = next(e for e in events if e["type"] == "LLM_ERROR" and e["role"] == "planner")
    assert "unusable answer" in error["message"]
    correction = [r for r in model.requests if r["role"] == "planner"][1]
    assert "could not be used" in json.dumps(correction["messages"][-1])


def test_a_body_trickled_byte_by_byte_ends_at_the_model_timeout(site, model_server, db_path: Path) -> None:
    # The trickle alone would take 500 s, far past the test's own timeout: the attempt must end.
    result, events, _ = _run(site, model_server, db_path, [{"fault": "trickle", "bytes_per_s": 20}, GOOD],
                             "--model-timeout", "3")
    assert result.returncode == 0, result.stderr
    error = next(e for e in events if e["type"] == "LLM_ERROR")
    assert "did not answer within 3s" in error["message"] and error["retry_in_s"] is not None


def test_control_characters_from_the_model_are_not_printed(site, model_server, db_path: Path) -> None:
    hostile = {**_first_plan(), "steps": ["Sign in\x1b[2J\x1b]0;pwned\x07 now", "Turn on dark mode\x9b2J"],
               "reasoning": "\x1b[31mred\x1b[0m"}
    result, _, _ = _run(site, model_server, db_path, [answer(call("plan", **hostile))])
    assert result.returncode == 0, result.stderr
    printed = result.stdout + result.stderr
    assert "Sign in" in printed and "pwned" not in printed
    assert not any(ch in printed for ch in "\x1b\x07\x9b")

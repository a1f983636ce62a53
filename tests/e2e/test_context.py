"""A page too big for a small-context model: the prompt shrinks step by step (history first, the
page last) and the call is tried again, each refusal on record."""

from __future__ import annotations

import json
from pathlib import Path

from kit import answer, call, run_cli, stored_events

CONTEXT_CHARS = 4000


def test_prompts_shrink_until_they_fit(hardsite, model_server, db_path: Path) -> None:
    script = {
        "server": {"context_chars": CONTEXT_CHARS, "repeat": True},
        "planner": [answer(call("plan", observation="An inventory table", done=True, web_task=True,
                                steps=[], final_answer="The first row is Row 1", confidence=0.9))],
        "validator": [answer(call("verdict", is_valid=True, reason="The table starts with Row 1",
                                  answer="Row 1", confidence=0.9))],
    }
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "what is the first row of the inventory?",
                     "--url", hardsite.page("table"), "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted")
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "Row 1"
    events = stored_events(db_path)
    refusals = [e for e in events if e["type"] == "LLM_ERROR"]
    assert refusals and all("the prompt is longer than 'scripted' takes" in e["message"]
                            and "sending a shorter prompt" in e["message"] for e in refusals)
    answered = [e for e in events if e["type"] == "LLM_CALL"]
    assert {e["role"] for e in answered} == {"planner", "validator"}
    assert all(e["shrink"] >= 3 for e in answered)  # the page itself had to be cut
    sizes = [len(json.dumps(r["messages"], ensure_ascii=False)) for r in model.requests if r["role"] == "planner"]
    assert sizes[0] > CONTEXT_CHARS and sizes == sorted(sizes, reverse=True)
    last_planner = [r for r in model.requests if r["role"] == "planner"][-1]
    assert "Goal: what is the first row" in last_planner["messages"][1]["content"]
    assert "Row 1" in last_planner["messages"][1]["content"]  # the top of the page survived

    # The endpoint's limit is remembered: the next run cuts its prompts before sending them, and
    # is refused less (here: not at all by the planner).
    first_run = len(model.requests)
    again = run_cli("--db", str(db_path), "run", "what is the first row of the inventory?",
                    "--url", hardsite.page("table"), "--no-tui", "--yes",
                    "--base-url", model.base_url, "--model", "scripted")
    assert again.returncode == 0, again.stderr
    later = model.requests[first_run:]
    refused = [r for r in later if len(json.dumps(r["messages"], ensure_ascii=False)) > CONTEXT_CHARS]
    assert len(refused) < len(refusals)
    assert len(json.dumps(later[0]["messages"], ensure_ascii=False)) < sizes[0]

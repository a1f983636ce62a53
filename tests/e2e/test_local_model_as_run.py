"""A local model as users run it (issue 75), played by the scripted server: a long-winded model
behind a one-slot server, answers nobody could use, a busy endpoint and a base URL without /v1."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

from goalbot.llm.client import ROLE_ANSWER_TOKENS
from kit import answer, call, element, plan, rows, run_cli, run_goal, verdict, wait_until


def _dark_mode(planner_first: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "planner": [*(planner_first or []), plan("Turn on Dark mode and save")],
        "navigator": [answer(call("click", index=element("Dark mode")), call("click", index=element("Save")),
                             call("finished", success=True, summary="saved"))],
        "validator": [verdict(True, "'Saved' is shown", answer_text="Dark mode is on.")],
    }


def test_every_request_carries_its_roles_answer_limit(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    model = model_server(_dark_mode())
    result, _ = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save")
    assert result.returncode == 0, result.stderr
    sent = {r["role"]: r.get("max_tokens") for r in model.requests}
    assert set(sent) == {"planner", "navigator", "validator"}
    # Without one a local server writes until its context fills; each role has its own bound.
    assert sent == {role: ROLE_ANSWER_TOKENS[role] for role in sent}

    hardsite.reset()
    model = model_server(_dark_mode())
    result, _ = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save",
                         "--max-answer-tokens", "300")
    assert result.returncode == 0, result.stderr
    assert {r.get("max_tokens") for r in model.requests} == {300}


def test_a_dropped_request_does_not_hold_up_the_next_attempt(hardsite, model_server, db_path: Path) -> None:
    """One slot, and a first answer that goes on for 7 s though its client gave up at 3 s, as
    llama-cpp-python's server does: the retry must wait for the slot rather than queue behind it
    and time out too, and the latency stored is the answer's own, not that wait."""
    hardsite.reset()
    script = {"server": {"one_at_a_time": True, "sees_client_leave": False},
              **_dark_mode([{"fault": "long_winded", "seconds": 7}])}
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save",
                              "--model-timeout", "3")
    assert result.returncode == 0, result.stderr
    planner = [r for r in model.requests if r["role"] == "planner"]
    assert len(planner) == 2 and planner[1]["waited_s"] < 1.0, [r["waited_s"] for r in planner]
    errors = [e for e in events if e["type"] == "LLM_ERROR"]
    assert len(errors) == 1 and "did not answer within 3s" in errors[0]["message"], errors
    assert "once the endpoint has finished the request given up on" in errors[0]["message"]
    call_event = next(e for e in events if e["type"] == "LLM_CALL" and e["role"] == "planner")
    assert call_event["attempt"] == 2 and call_event["latency_ms"] < 1500, call_event


def test_a_server_that_sees_the_client_leave_is_free_at_once(hardsite, model_server, db_path: Path) -> None:
    """The attempt given up on closes its connection, so a server that watches stops its work."""
    hardsite.reset()
    script = {"server": {"one_at_a_time": True}, **_dark_mode([{"fault": "long_winded", "seconds": 60}])}
    model = model_server(script)
    result, _ = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save",
                         "--model-timeout", "3")
    assert result.returncode == 0, result.stderr
    assert model.abandoned == 1


def test_what_the_model_said_is_stored_and_shown(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    rambling = "I think the user wants dark mode. The password is hunter2-secret, by the way. " * 40
    model = model_server(_dark_mode([{"content": rambling}]))
    result, events = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save",
                              "--secret", "pw=hunter2-secret")
    assert result.returncode == 0, result.stderr
    unusable = [e for e in events if e["type"] == "LLM_ERROR"]
    assert len(unusable) == 1 and "no tool call" in unusable[0]["message"]
    said = unusable[0]["said"]
    assert said.startswith("I think the user wants dark mode.")
    assert len(said) == 2000 + len(" …(cut)") and said.endswith("…(cut)")  # the model wrote 3,200 characters
    assert "hunter2-secret" not in said  # scrubbed like every event

    tail = run_cli("--db", str(db_path), "tail", "-n", "1000")
    line = next(line for line in tail.stdout.splitlines() if "LLM_ERROR" in line)
    assert "it said: I think the user wants dark mode." in line
    report = run_cli("--db", str(db_path), "report").stdout
    assert "the planner said:" in report and "I think the user wants dark mode." in report
    assert "hunter2-secret" not in tail.stdout + report


def _hold_the_slot(model: Any, seconds: float) -> threading.Thread:
    """Another client's question keeps the one slot busy for `seconds`."""
    body = json.dumps({"model": "scripted", "messages": [{"role": "user", "content": "write a poem"}],
                       "tools": [{"type": "function", "function": {"name": "plan", "parameters": {}}}]}).encode()
    question = urllib.request.Request(f"{model.base_url}/chat/completions", data=body,
                                      headers={"Content-Type": "application/json"})
    holder = threading.Thread(target=lambda: urllib.request.urlopen(question, timeout=seconds + 30).read(),
                              daemon=True)
    holder.start()
    wait_until(lambda: model.requests, 10, "the other client's question")
    return holder


def test_a_busy_endpoint_is_waited_for_not_blamed_on_the_address(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {"server": {"one_at_a_time": True, "sees_client_leave": False},
              **_dark_mode([{"fault": "long_winded", "seconds": 9}])}
    model = model_server(script)
    holder = _hold_the_slot(model, 9)
    result, events = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save")
    holder.join(30)
    assert result.returncode == 0, result.stderr
    assert "is busy" in result.stderr and "waiting up to" in result.stderr, result.stderr
    assert "cannot reach" not in result.stderr and "check --base-url" not in result.stderr
    assert events[-1]["type"] == "TASK_OK"


def test_an_episode_that_never_ran_is_not_scored_against_the_model(db_path: Path) -> None:
    """Two episodes end, one never starts (its slot's browser failed): the scorecard counts the
    two, says the third was not run, and a comparison pairs nothing with it."""
    from goalbot.eval import render
    from goalbot.eval.compare import compare
    from goalbot.eval.episodes import plan_episodes
    from goalbot.eval.running import _result
    from goalbot.eval.scorecard import Scorecard
    from goalbot.eval.tasks import ALL
    from goalbot.service.batch.setup import JobEnd

    task = next(t for t in ALL if t.source == "miniwob")
    ok, failed, never = plan_episodes([task], 3, 0, "p75")
    card = Scorecard(model="m", base_url="http://127.0.0.1:1/v1", dialect="auto", started_at="now", seconds=1.0)
    card.episodes = [
        _result(ok, JobEnd("ok", "s1", "done"), 1.0, 2.0, db_path),
        _result(failed, JobEnd("failed", "s2", "the step failed"), 0.0, 2.0, db_path),
        _result(never, JobEnd("failed", None, "cannot start the browser"), None, 0.1, db_path),
    ]
    assert [e.ran for e in card.episodes] == [True, True, False]
    assert card.successes == 1 and len(card.scored) == 2 and card.rate == 0.5
    assert card.summary()["episodes"] == 2 and card.summary()["not_run"] == 1
    shown = render.terminal(card)
    assert "1/2 episodes succeeded" in shown and "1 not run, not counted" in shown
    assert f"{task.name} seed {never.seed}: cannot start the browser" in shown.split("not run (")[1]
    assert "| – not run |" in render.markdown(card)
    assert compare(card, card).paired == 2


def test_a_base_url_without_v1_is_caught_before_the_browser_starts(model_server, db_path: Path) -> None:
    model = model_server(_dark_mode())
    bare = model.base_url.removesuffix("/v1")
    result = run_cli("--db", str(db_path), "run", "turn on dark mode", "--url", "http://127.0.0.1:9/",
                     "--no-tui", "--yes", "--base-url", bare, "--model", "scripted")
    assert result.returncode == 2, result.stderr
    assert f"did you mean --base-url {model.base_url}?" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not model.requests  # no question asked: refused before the browser or the planner
    assert not db_path.exists() or not rows(db_path, "select id from sessions")


def test_help_lists_every_dialect() -> None:
    from goalbot.llm.dialects import Dialect

    for command in ("run", "doctor", "eval"):
        shown = " ".join(run_cli(command, "--help").stdout.split())
        assert all(dialect.value in shown for dialect in Dialect), (command, shown)


def test_an_endpoint_that_refuses_max_tokens_is_given_max_completion_tokens(hardsite, model_server,
                                                                            db_path: Path) -> None:
    """Now that every request carries a limit, one that refuses the old name must not end the run."""
    hardsite.reset()
    model = model_server({"server": {"max_tokens": False}, **_dark_mode()})
    result, events = run_goal(db_path, model, hardsite.page("display"), "turn on dark mode and save")
    assert result.returncode == 0, result.stderr
    refused, *asked = model.requests
    assert "max_tokens" in refused and all("max_tokens" not in r for r in asked)
    assert {r["role"]: r["max_completion_tokens"] for r in asked} == {
        role: ROLE_ANSWER_TOKENS[role] for role in ("planner", "navigator", "validator")}
    assert [e["message"] for e in events if e["type"] == "LLM_ERROR"][0].endswith(
        "asking again with max_completion_tokens")

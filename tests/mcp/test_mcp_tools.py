"""`goalbot mcp` driven by the real MCP client in this process: a goal run on a page the tests
serve with the scripted model, followed with progress notifications; the GO / NOT GO for a
purchase put to the person through the host (elicitation) and bound to that one action; a run
polled, cancelled, and two at once; bad input answered with a code, a message and a hint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from goalbot.mcp.runs import HostRules
from goalbot.mcp.server import build_server
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import answer, call, element, finished, plan, rows, verdict

BUY = "buy one kimchi stew kit"


def _buying(after_go: bool = True) -> dict[str, Any]:
    return {"planner": [plan("Buy one kit with the Buy now button")],
            "navigator": [answer(call("click", index=element("Buy now"))),
                          finished(after_go, "bought" if after_go else "not bought")],
            "validator": [verdict(after_go, "ordered" if after_go else "no order")] * 2}


def _server(model: Any, db_path: Path, **rules: Any) -> Any:
    settings = load_settings({"base_url": model.base_url, "model": "scripted", "db": str(db_path)})
    return build_server(settings, db_path, HostRules(**rules))


def _go(decision: str, asked: list[str]):
    async def on_elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if "approve the plan" in params.message:
            return types.ElicitResult(action="accept", content={"approve": True, "feedback": ""})
        return types.ElicitResult(action="accept", content={"decision": decision})
    return on_elicit


@pytest.mark.parametrize("decision", ["GO", "NOT GO"])
async def test_the_person_says_go_or_not_go_through_the_host_and_progress_follows_the_run(
        hardsite: HardSite, model_server, db_path: Path, decision: str) -> None:
    hardsite.reset()
    model = model_server(_buying(after_go=decision == "GO"))
    asked: list[str] = []
    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with Client(_server(model, db_path), elicitation_callback=_go(decision, asked)) as client:
        result = await client.call_tool("run_goal", {"goal": BUY, "url": hardsite.page("checkout"), "wait": True},
                                        progress_callback=on_progress)
    assert not result.is_error, result.content
    started = result.structured_content
    assert asked[0].startswith(f"goalbot run {started['run_id']} [") and "approve the plan" in asked[0]
    assert "Buy now" in asked[1] and "GO" not in asked[1].split("]")[0]  # the question names the button
    bought = hardsite.reached("/api/buy", "POST")
    assert bought == (['{"qty":"1"}'] if decision == "GO" else [])  # the purchase only after GO
    assert any(p.startswith("STEP_START") for p in progress) and any("APPROVAL_REQUEST" in p for p in progress)
    granted = rows(db_path, "select type, data from events where session_id = ? and type like 'APPROVAL_%'"
                            " and data like '%risky%'", started["run_id"])
    assert [r["type"] for r in granted][-1] == ("APPROVAL_GRANTED" if decision == "GO" else "APPROVAL_DENIED")
    assert json.loads(granted[-1]["data"])["by"] == "the MCP host's person"


async def test_a_host_without_elicitation_polls_and_get_run_says_the_run_waits_for_the_person(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    model = model_server(_buying())
    async with Client(_server(model, db_path, approve_plans=True)) as client:
        # A model that slips in switches gets none: what the server allows is its own configuration.
        started = (await client.call_tool("run_goal", {"goal": BUY, "url": hardsite.page("checkout"),
                                                       "allow_risky": True, "yes": True})).structured_content
        run_id = started["run_id"]

        async def state() -> dict[str, Any]:
            return (await client.call_tool("get_run", {"run_id": run_id})).structured_content

        deadline = anyio.current_time() + 60
        while (now := await state())["status"] != "waiting_for_person":
            assert anyio.current_time() < deadline, now
            await anyio.sleep(0.2)
        assert now["waiting"]["risky"] and "Buy now" in now["waiting"]["what"]
        assert len(json.dumps(now)) < 4_000  # a summary, never the whole page
        cancelled = (await client.call_tool("cancel_run", {"run_id": run_id})).structured_content
        assert cancelled["run_id"] == run_id
        while (now := await state())["status"] not in ("cancelled", "failed"):
            assert anyio.current_time() < deadline, now
            await anyio.sleep(0.2)
        assert now["status"] == "cancelled"
    assert hardsite.reached("/api/buy", "POST") == []
    assert rows(db_path, "select status from sessions where id = ?", run_id)[0]["status"] == "cancelled"


async def test_two_goals_run_at_once_each_in_its_own_browser(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    schema = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
    script = {"planner": [plan("Read the page's heading")] * 2, "navigator": [finished(True, "read")] * 2,
              "validator": [verdict(True, "read")] * 4,
              "extractor": [answer(call("extracted", data={"title": "Seats for Friday"}))] * 2}
    model = model_server(script)
    async with Client(_server(model, db_path, approve_plans=True)) as client:
        results: list[dict[str, Any]] = []

        async def one() -> None:
            done = await client.call_tool("run_goal", {"goal": "the page's heading", "url": hardsite.page("seats"),
                                                       "output_schema": schema, "wait": True})
            results.append(done.structured_content)

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
        listed = (await client.call_tool("list_runs", {"limit": 5})).structured_content["runs"]
    assert [r["status"] for r in results] == ["ok", "ok"] and results[0]["run_id"] != results[1]["run_id"]
    assert all(r["result"] == {"title": "Seats for Friday"} for r in results)
    assert {r["run_id"] for r in listed} >= {r["run_id"] for r in results}
    starts = rows(db_path, "select started_at, ended_at from sessions order by started_at")
    assert starts[1]["started_at"] < starts[0]["ended_at"]  # the second began before the first ended


async def test_cancelling_the_call_in_the_host_stops_the_run(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    model = model_server(_buying())
    asked = anyio.Event()

    async def never_answers(_context: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.set()  # the person is being asked the plan; the host gives up before they answer
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    # A host of today's protocol asks mid-call: the call is still open while its person is asked.
    async with Client(_server(model, db_path), mode="legacy", elicitation_callback=never_answers) as client:
        with anyio.move_on_after(60):
            async with anyio.create_task_group() as group:
                async def follow() -> None:
                    await client.call_tool("run_goal", {"goal": BUY, "url": hardsite.page("checkout"), "wait": True})
                group.start_soon(follow)
                await asked.wait()
                group.cancel_scope.cancel()
        run_id = rows(db_path, "select id from sessions")[0]["id"]
        # The server runs on this very loop: wait without blocking it.
        await wait_until_async(lambda: rows(db_path, "select status from sessions where id = ?", run_id)[0]["status"]
                               == "cancelled", "the run stopped")
    assert hardsite.reached("/api/buy", "POST") == []


async def test_a_host_that_cannot_ask_its_person_hears_what_waits_at_once(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    """With wait on a host with no elicitation, the call comes back as soon as the run waits, with
    the question, as get_run gives it; the run waits on for `goalbot attach`."""
    hardsite.reset()
    model = model_server(_buying())
    async with Client(_server(model, db_path)) as client:
        with anyio.fail_after(120):
            waited = await client.call_tool("run_goal", {"goal": BUY, "url": hardsite.page("checkout"), "wait": True})
        assert not waited.is_error, waited.content
        answer = waited.structured_content
        assert answer["status"] == "waiting_for_person" and answer["waiting"]["kind"] == "plan"
        assert "Buy one kit" in answer["waiting"]["what"] and f"goalbot attach {answer['run_id']}" in answer["reason"]
        state = (await client.call_tool("get_run", {"run_id": answer["run_id"]})).structured_content
        assert state["status"] == "waiting_for_person" and state["waiting"] == answer["waiting"]
        await client.call_tool("cancel_run", {"run_id": answer["run_id"]})


async def wait_until_async(condition: Any, what: str, seconds: float = 60) -> None:
    deadline = anyio.current_time() + seconds
    while not condition():
        assert anyio.current_time() < deadline, f"timed out waiting for {what}"
        await anyio.sleep(0.1)


@pytest.mark.parametrize(("tool", "arguments", "code"), [
    ("rerun_recipe", {"name": "nothing"}, "not_found"),
    ("run_goal", {"goal": "list the seats", "output_schema": {"type": "nope"}}, "bad_input"),
    ("run_goal", {"goal": "sign in with password: hunter2"}, "secret_in_goal"),
    ("run_goal", {"goal": "   "}, "bad_input"),
    ("get_run", {"run_id": "20990101-000000-0000"}, "not_found"),
    ("get_report", {"run_id": "nope"}, "not_found"),
])
async def test_bad_input_gets_a_code_a_message_and_a_hint(model_server, db_path: Path, tool: str,
                                                          arguments: dict[str, Any], code: str) -> None:
    async with Client(_server(model_server({}), db_path)) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    text = result.content[0].text
    problem = json.loads(text[text.index("{"):])
    assert problem["code"] == code and problem["message"] and "Traceback" not in text
    assert "hunter2" not in text


async def test_a_recipe_reruns_from_the_host_with_no_model_and_a_model_gets_no_switch_past_the_person(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    from kit import run_goal
    from seats_kit import FRIDAY, POLICIES, SATURDAY, SEATS_SCHEMA, as_data

    hardsite.reset()
    hardsite.posted["seats"] = FRIDAY
    schema, policies = tmp_path / "seats.json", tmp_path / "policies.json"
    schema.write_text(json.dumps(SEATS_SCHEMA))
    policies.write_text(json.dumps(POLICIES))
    recording = model_server({
        "planner": [plan("Take the cheapest front-row seat")],
        "navigator": [answer(call("extract", instruction="every seat", key="seats", schema="seats"),
                             call("choose", **{"from": "seats"}, policy="cheapest_front", act=True)),
                      finished(True, "picked")],
        "extractor": [answer(call("extracted", data=as_data(FRIDAY)))],
        "validator": [verdict(True, "picked")] * 2})
    recorded, _ = run_goal(db_path, recording, hardsite.page("seat-picker"), "the cheapest front-row seat",
                           "--schema", f"seats={schema}", "--policies", str(policies), "--var", "MAX=55",
                           "--save-recipe", "seats")
    assert recorded.returncode == 0, recorded.stderr
    hardsite.posted["seats"] = SATURDAY
    nobody = model_server({})  # a rerun on an unchanged site asks no model
    async with Client(_server(nobody, db_path)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools["run_goal"].input_schema["properties"]) == {"goal", "url", "output_schema", "wait"}
        listed = (await client.call_tool("list_recipes", {})).structured_content["recipes"]
        assert listed == [{"name": "seats", "version": 1, "steps": 1, "goal": "the cheapest front-row seat",
                           "needs_vars": ["MAX"], "needs_secrets": []}]
        missing = await client.call_tool("rerun_recipe", {"name": "seats"})
        assert missing.is_error and '"code": "bad_input"' in missing.content[0].text and "MAX" in missing.content[0].text
        done = await client.call_tool("rerun_recipe", {"name": "seats", "vars": {"MAX": "55"}, "wait": True})
    assert not done.is_error, done.content
    assert done.structured_content["status"] == "ok"
    run_id = done.structured_content["run_id"]
    assert rows(db_path, "select count(*) as n from events where session_id = ? and type = 'LLM_CALL'", run_id)[0]["n"] == 0
    chosen = rows(db_path, "select data from events where session_id = ? and type = 'CHOSEN'", run_id)
    assert json.loads(chosen[0]["data"])["chosen"]["label"] == "A7"
    assert nobody.requests == []


async def test_an_unreachable_page_is_a_structured_error(model_server, db_path: Path) -> None:
    model = model_server({"planner": [plan("Look")]})
    async with Client(_server(model, db_path, approve_plans=True)) as client:
        result = await client.call_tool("run_goal", {"goal": "look around", "url": "http://127.0.0.1:9/",
                                                     "wait": True})
    assert result.is_error
    problem = json.loads(result.content[0].text[result.content[0].text.index("{"):])
    assert problem["code"] == "unreachable" and "127.0.0.1:9" in problem["message"]


async def test_an_imported_recipe_gets_no_secret_on_its_own_start_site_through_the_host(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    from pydantic import SecretStr

    from kit import darkmode_script, run_cli, run_goal

    hardsite.reset()
    recorded, _ = run_goal(db_path, model_server(darkmode_script()), hardsite.page("darkmode"),
                           "sign in and turn on dark mode", "--save-recipe", "darkmode", "--secret", "PW=hunter2")
    assert recorded.returncode == 0, recorded.stderr
    folder = tmp_path / "exported"
    assert run_cli("--db", str(db_path), "recipe", "export", "darkmode", str(folder)).returncode == 0
    workflow = json.loads((folder / "workflow.json").read_text())
    moved = hardsite.page("darkmode").replace(hardsite.url, hardsite.other)  # a site it was never recorded on
    (folder / "workflow.json").write_text(json.dumps({**workflow, "name": "moved", "start_url": moved}))
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    asked: list[str] = []
    server = _server(model_server({}), db_path, secrets={"PW": SecretStr("s3cret")})
    async with Client(server, elicitation_callback=_go("NOT GO", asked)) as client:
        done = await client.call_tool("rerun_recipe", {"name": "moved", "wait": True})
    assert not done.is_error and done.structured_content["status"] != "ok", done.content
    run_id = done.structured_content["run_id"]
    kinds = [json.loads(r["data"]).get("kind") for r in rows(
        db_path, "select data from events where session_id = ? and type = 'APPROVAL_REQUEST'", run_id)]
    assert kinds == ["secret_on_new_site"] and asked  # the person was asked, through the host
    typed = rows(db_path, "select data from events where session_id = ? and type = 'ACT_OK' "
                          "and data like '%\"type\"%'", run_id)
    assert len(typed) == 1 and "PW" not in typed[0]["data"]  # the user name only, never the secret

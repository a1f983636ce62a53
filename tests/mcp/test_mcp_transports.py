"""`goalbot mcp` as a host starts it: a subprocess on stdio, and `goalbot mcp --http` on 127.0.0.1 —
each driven by the real MCP client, with the protocol a host of today speaks (the handshake and
mid-call questions) and the newest (questions carried by retried calls)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from hardsite.server import HardSite
from kit import REPO, answer, call, element, finished, plan, rows, verdict
from mcp_kit import http_server as serving
from mcp_kit import mcp_flags, over_http, token_for
from seats_kit import FRIDAY, SEATS_SCHEMA, as_data


async def test_over_stdio_a_goal_runs_with_progress_and_its_answer_is_data(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["seats"] = FRIDAY
    model = model_server({"planner": [plan("Read the seats")], "navigator": [finished(True, "read")],
                          "validator": [verdict(True, "read")] * 2,
                          "extractor": [answer(call("extracted", data=as_data(FRIDAY)))]})
    server = StdioServerParameters(command=sys.executable, args=mcp_flags(db_path, model, "--approve-plans"),
                                   env=dict(os.environ), cwd=str(REPO))
    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with Client(server) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"run_goal", "rerun_recipe", "get_run", "cancel_run", "list_runs", "list_recipes",
                         "get_report", "observe"}
        done = await client.call_tool("run_goal", {"goal": "list the seats", "url": hardsite.page("seat-picker"),
                                                   "output_schema": SEATS_SCHEMA, "wait": True},
                                      progress_callback=on_progress)
        assert not done.is_error, done.content
        run_id = done.structured_content["run_id"]
        report = (await client.call_tool("get_report", {"run_id": run_id})).structured_content
        state = (await client.call_tool("get_run", {"run_id": run_id})).structured_content
        whole = await client.read_resource(report["uri"])
        picture = await client.read_resource(state["screenshot_uri"])
    assert done.structured_content["status"] == "ok" and done.structured_content["result"] == as_data(FRIDAY)
    assert any(p.startswith("STEP_OK") for p in progress) and any(p.startswith("EXTRACTED") for p in progress)
    assert report["markdown"].startswith(f"# Run summary {run_id}")
    assert whole.contents[0].text == report["markdown"]  # the same report, as a resource
    jpeg = base64.b64decode(picture.contents[0].blob)
    assert picture.contents[0].mime_type == "image/jpeg" and jpeg[:2] == b"\xff\xd8"
    # A run started over MCP is a stored session like any other.
    listed = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "sessions", "--plain"],
                            capture_output=True, text=True, cwd=REPO, timeout=60)
    assert run_id in listed.stdout


@pytest.fixture
def http_server(model_server, db_path: Path) -> Iterator[tuple[str, Any]]:
    model = model_server({"planner": [plan("Buy one kit with the Buy now button")],
                          "navigator": [answer(call("click", index=element("Buy now"))), finished(True, "bought")],
                          "validator": [verdict(True, "ordered")] * 2})
    with serving(db_path, model) as served:
        yield served


async def test_over_http_the_go_reaches_the_person_mid_call_and_the_purchase_follows_it(
        hardsite: HardSite, http_server: tuple[str, Any], db_path: Path) -> None:
    """A host of today (the handshake protocol): the server asks mid-call, on the same stream."""
    hardsite.reset()
    url, process = http_server
    asked: list[str] = []

    async def on_elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if "approve the plan" in params.message:
            return types.ElicitResult(action="accept", content={"approve": True, "feedback": ""})
        assert hardsite.reached("/api/buy", "POST") == []  # nothing was sent before the GO
        return types.ElicitResult(action="accept", content={"decision": "GO"})

    async with Client(over_http(url, token_for(db_path, "host")), mode="legacy",
                      elicitation_callback=on_elicit) as client:
        done = await client.call_tool("run_goal", {"goal": "buy one kit", "url": hardsite.page("checkout"),
                                                   "wait": True})
    assert not done.is_error, done.content
    assert done.structured_content["status"] == "ok"
    assert len(asked) == 2 and "click on 'Buy now'" in asked[1] and hardsite.page("checkout") in asked[1]
    assert hardsite.reached("/api/buy", "POST") == ['{"qty":"1"}']
    process.terminate()
    assert process.wait(30) is not None
    # The server ended: no browser of its runs is left behind.
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


async def test_a_host_that_goes_away_stops_the_runs_it_left_and_their_browsers(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    """The server's rule: a run goes on while its server does; a stdio host that disconnects ends
    the server, and every run still going stops first, its browser closed, its session stored."""
    hardsite.reset()
    model = model_server({"planner": [plan("Buy one kit with the Buy now button")]})
    server = StdioServerParameters(command=sys.executable, args=mcp_flags(db_path, model), env=dict(os.environ),
                                   cwd=str(REPO))
    async with Client(server) as client:
        started = await client.call_tool("run_goal", {"goal": "buy one kit", "url": hardsite.page("checkout")})
        run_id = started.structured_content["run_id"]
        for _ in range(600):
            state = (await client.call_tool("get_run", {"run_id": run_id})).structured_content
            if state["status"] == "waiting_for_person":
                break
            await anyio.sleep(0.1)
        assert state["waiting"]["kind"] == "plan"
    # Stored as cancelled: the run ended the way every run ends, its browser closed on the way, and
    # its end says why: not a person's stop.
    ended = dict(rows(db_path, "select status, finish_reason from sessions where id = ?", run_id)[0])
    assert ended == {"status": "cancelled", "finish_reason": "the MCP host disconnected"}


@pytest.mark.parametrize("host", ["claude", "cursor", "vscode"])
async def test_a_hosts_printed_config_starts_the_server(model_server, db_path: Path, tmp_path: Path,
                                                       host: str) -> None:
    """What `--print-config` prints is what a host runs: started here by the real MCP client, with
    no virtualenv on PATH, and only the model's flags added, as the manual says."""
    shown = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "mcp", "--print-config", host],
                           capture_output=True, text=True, cwd=REPO, timeout=60)
    assert shown.returncode == 0, shown.stderr
    config = json.loads(shown.stdout)
    entry = config["servers" if host == "vscode" else "mcpServers"]["goalbot"]
    assert Path(entry["command"]).is_absolute() and str(db_path) in entry["args"]
    model = model_server({})
    bare_path = {**os.environ, "PATH": "/usr/bin:/bin"}
    server = StdioServerParameters(command=entry["command"],
                                   args=[*entry["args"], "--base-url", model.base_url, "--model", "scripted"],
                                   env=bare_path, cwd=str(tmp_path))  # anywhere, not the checkout
    async with Client(server) as client:
        assert "run_goal" in {tool.name for tool in (await client.list_tools()).tools}

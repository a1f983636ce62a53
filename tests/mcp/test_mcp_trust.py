"""Attacks on `goalbot mcp` from a local process: a page that is no web page through `observe`, a
request without the server's token, one client reaching for another's run. Each is refused."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from goalbot.mcp.runs import HostRules
from goalbot.mcp.server import build_server
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import REPO, answer, call, element, finished, plan, run_goal, verdict
from mcp_kit import http_server, over_http, token_for

NOT_WEB_PAGES = ["file:///etc/passwd", "FILE:///etc/passwd", "file:///", "view-source:file:///etc/passwd",
                 "chrome://version", "data:text/html,<h1>inside</h1>", "javascript:alert(1)"]


def _problem(result: Any) -> dict[str, Any]:
    assert result.is_error, result.content
    text = result.content[0].text
    return json.loads(text[text.index("{"):])  # type: ignore[no-any-return]


def _in_process(model: Any, db_path: Path) -> Any:
    settings = load_settings({"base_url": model.base_url, "model": "scripted", "db": str(db_path)})
    return build_server(settings, db_path, HostRules())


@pytest.mark.parametrize("url", NOT_WEB_PAGES)
async def test_observe_over_stdio_opens_no_local_file_or_browser_page(model_server, db_path: Path, url: str) -> None:
    async with Client(_in_process(model_server({}), db_path)) as client:
        problem = _problem(await client.call_tool("observe", {"url": url}))
    assert problem["code"] == "off_list" and "root:" not in json.dumps(problem), problem


def test_goalbot_observe_opens_no_local_file(tmp_path: Path) -> None:
    secret = tmp_path / "private.txt"
    secret.write_text("the secret plans")
    for url in (secret.as_uri(), "chrome://version", f"view-source:{secret.as_uri()}"):
        shown = subprocess.run([sys.executable, "-m", "goalbot", "observe", url], capture_output=True, text=True,
                               cwd=REPO, timeout=120, stdin=subprocess.DEVNULL)
        assert shown.returncode == 2 and "not a web page" in shown.stderr, shown.stderr
        assert "the secret plans" not in shown.stdout + shown.stderr and "Traceback" not in shown.stderr


def test_goalbot_observe_keeps_to_allow_domain(hardsite: HardSite) -> None:
    shown = subprocess.run([sys.executable, "-m", "goalbot", "observe", hardsite.page("checkout"),
                            "--allow-domain", "example.com"], capture_output=True, text=True, cwd=REPO, timeout=120,
                           stdin=subprocess.DEVNULL)
    assert shown.returncode == 2 and "outside --allow-domain (example.com)" in shown.stderr, shown.stderr


def _buying(model_server: Any) -> Any:
    return model_server({"planner": [plan("Buy one kit with the Buy now button")],
                         "navigator": [answer(call("click", index=element("Buy now"))), finished(True, "bought")],
                         "validator": [verdict(True, "ordered")] * 2})


async def test_over_http_a_request_without_the_token_is_refused(model_server, db_path: Path) -> None:
    with http_server(db_path, _buying(model_server)) as (url, _process):
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        good = token_for(db_path, "host")
        name, _, mac = good.partition(".")
        # One hex digit changed: a fixed replacement would equal the real digit one time in sixteen.
        forged = mac[:-1] + ("1" if mac[-1] == "0" else "0")
        async with httpx.AsyncClient(timeout=30) as raw:
            for authorization in (None, "Bearer", "Bearer nope", f"Bearer other.{mac}", f"Bearer {name}.{forged}",
                                  f"Basic {good}"):
                sent = dict(headers, **({"Authorization": authorization} if authorization else {}))
                answered = await raw.post(url, json=hello, headers=sent)
                assert answered.status_code == 401, (authorization, answered.text)
                assert answered.headers["www-authenticate"] == "Bearer"
        async with Client(over_http(url, good)) as client:
            assert "run_goal" in {tool.name for tool in (await client.list_tools()).tools}
        key = Path(os.environ["XDG_CONFIG_HOME"]) / "goalbot" / "mcp-key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600 and good not in key.read_text()


async def test_over_http_one_client_neither_sees_nor_steers_anothers_run(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    # A goal typed at the command line earlier: a stored session of another process.
    typed, _ = run_goal(db_path, _buying(model_server), hardsite.page("checkout"), "buy the private kit", "--yes")
    assert "session" in typed.stderr, typed.stderr
    with http_server(db_path, _buying(model_server)) as (url, _process):
        a, b = over_http(url, token_for(db_path, "alice")), over_http(url, token_for(db_path, "bob"))
        async with Client(a) as alice, Client(b) as bob:
            started = await alice.call_tool("run_goal", {"goal": "buy one kit", "url": hardsite.page("checkout")})
            run_id = started.structured_content["run_id"]
            with anyio.fail_after(120):
                while (await alice.call_tool("get_run", {"run_id": run_id})).structured_content["status"] \
                        != "waiting_for_person":
                    await anyio.sleep(0.2)
            assert [r["run_id"] for r in (await alice.call_tool("list_runs", {})).structured_content["runs"]] \
                == [run_id]  # not the command line's session
            assert (await bob.call_tool("list_runs", {})).structured_content["runs"] == []
            for tool in ("get_run", "get_report", "cancel_run"):
                assert _problem(await bob.call_tool(tool, {"run_id": run_id}))["code"] == "not_found", tool
            with pytest.raises(Exception):
                await bob.read_resource(f"goalbot://runs/{run_id}/report")
            still = (await alice.call_tool("get_run", {"run_id": run_id})).structured_content
            assert still["status"] == "waiting_for_person"  # bob's cancel reached nothing
            cancelled = await alice.call_tool("cancel_run", {"run_id": run_id})
            assert not cancelled.is_error, cancelled.content
    assert hardsite.reached("/api/buy", "POST") == []


@pytest.mark.parametrize("url", ["file:///etc/passwd", "chrome://version"])
async def test_observe_over_http_opens_no_local_file(model_server, db_path: Path, url: str) -> None:
    with http_server(db_path, _buying(model_server)) as (address, _process):
        async with Client(over_http(address, token_for(db_path, "host"))) as client:
            problem = _problem(await client.call_tool("observe", {"url": url}))
    assert problem["code"] == "off_list" and "root:" not in json.dumps(problem)

"""Whole runs in each dialect: JSON text, UI-TARS text with coordinates, and auto falling back to
text when the endpoint refuses tools. The real `openai` client and our parsers read the answers
of a real HTTP server; the demo site's own record says whether the goal was reached."""

from __future__ import annotations

import base64
import io
import json
from importlib.resources import files
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from kit import demo_script, open_page, run_cli, run_goal

DEMO_GOAL = "sign in and turn on dark mode"
SIGNED_IN_DARK = {"demo@example.com": True}


def _json_text(value: Any) -> str:
    """`{"$element": "Save"}` becomes the server's `$element(Save)`, outside any quotes."""
    return re.sub(r'\{"\$element": "([^"]*)"\}', r"$element(\1)", json.dumps(value, ensure_ascii=False))


def as_text(script: dict[str, Any]) -> dict[str, Any]:
    """The demo script as a model without tool calls would answer it: JSON written in the text."""
    out: dict[str, Any] = {}
    for role, answers in script.items():
        if not isinstance(answers, list):  # the server's own settings
            out[role] = answers
            continue
        out[role] = []
        for entry in answers:
            calls, rule = entry["tool_calls"], {k: v for k, v in entry.items() if k != "tool_calls"}
            if role == "navigator":
                body = _json_text([{"action": c["name"], **c["arguments"]} for c in calls])
                out[role].append({**rule, "content": body})
            else:
                body = _json_text(calls[0]["arguments"])
                out[role].append({**rule, "content": f"Here is my answer:\n```json\n{body}\n```"})
    return out


def _run(model, site, db_path: Path, *flags: str, goal: str = DEMO_GOAL):
    return run_goal(db_path, model, f"{site.url}/login", goal, *flags)


def _image_size(request: dict[str, Any]) -> tuple[int, int] | None:
    for message in request["messages"]:
        if isinstance(message.get("content"), list):
            for part in message["content"]:
                if part.get("type") == "image_url":
                    data = part["image_url"]["url"].split(",", 1)[1]
                    return Image.open(io.BytesIO(base64.b64decode(data))).size
    return None


def test_json_dialect_with_vision(site, model_server, db_path: Path) -> None:
    model = model_server(as_text(demo_script()))
    result, events = _run(model, site, db_path, "--dialect", "json", "--vision")
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == SIGNED_IN_DARK
    assert all("tools" not in r for r in model.requests)
    system = model.requests[0]["messages"][0]["content"]
    assert "Tools cannot be called here" in system and '"steps"' in system
    assert all(_image_size(r) == (1280, 800) for r in model.requests)
    calls = [e for e in events if e["type"] == "LLM_CALL"]
    assert calls and all(e["dialect"] == "json" for e in calls)


def test_auto_falls_back_to_text_when_tools_are_refused(site, model_server, db_path: Path) -> None:
    script = {"server": {"tools": False}, **as_text(demo_script())}
    model = model_server(script)
    result, events = _run(model, site, db_path)
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == SIGNED_IN_DARK
    refusals = [e for e in events if e["type"] == "LLM_ERROR"]
    assert sorted(e["role"] for e in refusals) == ["navigator", "planner", "validator"]
    assert all("does not take tool calls" in e["message"] for e in refusals)
    for role in ("planner", "navigator", "validator"):
        offered = ["tools" in r for r in model.requests if r["role"] == role]
        assert offered[0] and not any(offered[1:]), (role, offered)  # asked once, then remembered
    assert {e["dialect"] for e in events if e["type"] == "LLM_CALL"} == {"json"}


def test_tools_dialect_refused_says_what_to_do(site, model_server, db_path: Path) -> None:
    model = model_server({"server": {"tools": False}, **demo_script()})
    result, _ = _run(model, site, db_path, "--dialect", "tools")
    assert result.returncode == 1
    assert "does not take tool calls" in result.stderr and "try --dialect json" in result.stderr


async def _login_boxes(browser, url: str) -> dict[str, tuple[float, float, float, float]]:
    await open_page(browser, url)
    observation = await browser.observe()
    return {e.name: e.box for e in observation.elements.values() if e.box}


def _relative(box: tuple[float, float, float, float]) -> str:
    """A UI-TARS 1.0 box, 0–1000 of a 1280×800 screenshot."""
    x, y, w, h = box
    return f"({round(x / 1.28)},{round(y / 0.8)},{round((x + w) / 1.28)},{round((y + h) / 0.8)})"


async def test_uitars_navigator_clicks_and_types_by_coordinates(site, model_server, db_path, browser) -> None:
    boxes = await _login_boxes(browser, f"{site.url}/login")
    plan = demo_script()["planner"][0]
    plan["tool_calls"][0]["arguments"]["steps"] = ["Sign in with the demo account shown on the page"]
    verdict = {"tool_calls": [{"name": "verdict", "arguments": {
        "is_valid": True, "reason": "Signed in as demo@example.com", "confidence": 0.9}}]}
    script = {
        "planner": [plan],
        "navigator": [
            {"content": "Thought: The email field is empty; I fill in the demo account.\n"
                        f"Action: click(start_box='<|box_start|>{_relative(boxes['Email'])}<|box_end|>')\n\n"
                        "type(content='demo@example.com')\n\n"
                        f"click(start_box='{_relative(boxes['Password'])}')\n\n"
                        "type(content='demo-pass\\n')"},
            {"content": "Thought: The settings page is open, so I am signed in.\n"
                        "Action: finished(content='Signed in as demo@example.com')"},
        ],
        "validator": [verdict, verdict],
    }
    model = model_server(script)
    result, events = _run(model, site, db_path, "--dialect", "navigator=uitars", goal="sign in")
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["signed_in"] == ["demo@example.com"]
    navigator = [r for r in model.requests if r["role"] == "navigator"]
    assert all("tools" not in r and _image_size(r) == (1280, 800) for r in navigator)
    assert "Thought:" in navigator[0]["messages"][0]["content"]
    assert all("tools" in r for r in model.requests if r["role"] != "navigator")
    clicks = [e["action"] for e in events if e["type"] == "ACT_OK" and e["action"]["name"] == "click"]
    x, y, w, h = boxes["Email"]
    assert abs(clicks[0]["x"] - (x + w / 2)) <= 1.5 and abs(clicks[0]["y"] - (y + h / 2)) <= 1.5
    typed = [e["action"] for e in events if e["type"] == "ACT_OK" and e["action"]["name"] == "type"]
    assert typed[0]["text"] == "demo@example.com" and typed[1]["text"] == "•••"  # a password field
    assert "demo-pass" not in json.dumps(events)


@pytest.mark.parametrize("status", [400, 500])
def test_a_server_that_refuses_tool_choice_is_asked_without_it(status: int, site, model_server, db_path: Path) -> None:
    """llama-cpp-python's server refuses tool_choice "required" with HTTP 500: one refusal, then
    the run goes on without it; never five retries of an answer that cannot change."""
    model = model_server({"server": {"tool_choice": False, "refusal_status": status}, **demo_script()})
    result, events = _run(model, site, db_path)
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == SIGNED_IN_DARK
    [refusal] = [e for e in events if e["type"] == "LLM_ERROR"]
    assert "refuses tool_choice" in refusal["message"] and "asking again without tool_choice" in refusal["message"]
    assert "tool_choice" in model.requests[0]
    assert all("tools" in r and "tool_choice" not in r for r in model.requests[1:])


def test_a_bare_500_on_tool_choice_is_tried_without_it_once_and_remembered(site, model_server, db_path: Path,
                                                                             tmp_path: Path) -> None:
    """llama-cpp-python's server fails on tool_choice "required" with an HTTP 500 that says nothing.
    One attempt without it tells; the next run on that endpoint sends none from its first call,
    and `goalbot doctor` says so."""
    model = model_server({"server": {"tool_choice": False, "refusal_status": 500, "refusal_says": False,
                                     "repeat": True}, **demo_script()})
    result, events = _run(model, site, db_path)
    assert result.returncode == 0, result.stderr
    [refusal] = [e for e in events if e["type"] == "LLM_ERROR"]
    assert "asking again without tool_choice, which some servers fail on unsaid" in refusal["message"]
    first_run = len(model.requests)
    assert all("tool_choice" not in r for r in model.requests[1:])
    again, _ = _run(model, site, db_path)
    assert again.returncode == 0, again.stderr
    assert all("tool_choice" not in r for r in model.requests[first_run:])  # remembered: no refused call
    remembered = json.loads((tmp_path / "data" / "goalbot" / "endpoints.json").read_text())
    assert remembered[f"{model.base_url} scripted"]["tool_choice"] is False
    doctor = run_cli("doctor", "--base-url", model.base_url, "--model", "scripted")
    assert "scripted: refuses tool_choice: requests are sent without it" in doctor.stdout


def test_a_bare_500_that_is_not_about_tool_choice_is_retried_as_ever(site, model_server, db_path: Path,
                                                                      tmp_path: Path) -> None:
    script = demo_script()
    script["planner"][:0] = [{"fault": "server_error", "status": 500}] * 2
    model = model_server(script)
    result, events = _run(model, site, db_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "data" / "goalbot" / "endpoints.json").exists()  # nothing wrongly learnt
    assert "tool_choice" in model.requests[-1]


def test_structured_output_takes_the_form_the_server_takes(site, model_server, db_path: Path, tmp_path: Path) -> None:
    """`--dialect structured` sends the answer's schema as response_format: OpenAI's form first;
    refused by name (as llama-cpp-python's server does), llama.cpp's own form from then on."""
    script = as_text(json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8")))
    script["server"] = {**script["server"], "response_formats": ["json_object"], "refusal_status": 500}
    model = model_server(script)
    result, events = _run(model, site, db_path, "--dialect", "structured", "--model", "scripted-demo")
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == SIGNED_IN_DARK
    [refusal] = [e for e in events if e["type"] == "LLM_ERROR"]
    assert "asking again with response_format json_object" in refusal["message"]
    assert model.requests[0]["response_format"]["type"] == "json_schema"
    held = [r["response_format"] for r in model.requests[1:]]
    assert all(f["type"] == "json_object" for f in held) and len(held) >= 3
    plan_schema = held[0]["schema"]
    assert set(plan_schema["required"]) == set(plan_schema["properties"]) and "steps" in plan_schema["required"]
    actions = next(f["schema"] for f, r in zip(held, model.requests[1:]) if r["role"] == "navigator")
    names = {shape["properties"]["action"]["const"] for shape in actions["properties"]["actions"]["items"]["anyOf"]}
    assert {"click", "type", "finished"} <= names
    assert all(r.get("max_tokens") for r in model.requests)
    remembered = json.loads((tmp_path / "data" / "goalbot" / "endpoints.json").read_text())
    assert remembered[f"{model.base_url} scripted-demo"]["response_format"] == "json_object"


def test_json_dialect_extracts_and_chooses_as_tool_calls_do(site, model_server, db_path: Path) -> None:
    """The shop's goal with a model that writes its actions as JSON text: the table is read into
    data, the policy picks, and the pick is clicked — as with tool calls."""
    script = json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))
    model = model_server(as_text(script))
    result, events = run_goal(db_path, model, f"{site.url}/shop", "put the most expensive lamp under 40 in the cart",
                              "--dialect", "json", "--var", "MAX=40", "--model", "scripted-demo")
    assert result.returncode == 0, result.stderr
    acted = [e["action"]["name"] for e in events if e["type"] == "ACT_OK"]
    assert "extract" in acted and "choose" in acted, acted
    assert site.state.snapshot().get("cart") == ["reading-lamp"]

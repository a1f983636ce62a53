"""The same bad request refused the same way at every door — the command line, the dashboard (through
Pilot), the real MCP client, a batch job — with the same code and hint, and no browser started:
the checks live in the service layer every door starts work through."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from dashboard_kit import until
from goalbot.mcp.runs import HostRules
from goalbot.mcp.server import build_server
from goalbot.recipes.model import Recipe
from goalbot.service.checks import ENDPOINT_HINT, SECRET_HINT
from goalbot.service.reruns import VARS_HINT
from goalbot.service.settings import load_settings
from hardsite.server import HardSite
from kit import run_cli
from storage import recipes
from storage.db import opened
from tui.app import GoalbotApp
from tui.starting import goal_starter
from tui.widgets.goal_input import GoalInput

DEAD = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
Door = str
DOORS: list[Door] = ["command line", "dashboard", "mcp", "batch"]


class Request:
    """One bad request, as each door takes it: a goal (and its page), or a recipe's rerun."""

    def __init__(self, name: str, code: str, hint: str, goal: str | None = None, recipe: str | None = None,
                 vars: dict[str, str] | None = None, endpoint: str | None = None, allow: str | None = None) -> None:
        self.name, self.code, self.hint, self.goal, self.recipe = name, code, hint, goal, recipe
        self.vars, self.endpoint, self.allow = vars or {}, endpoint, allow


REQUESTS = [
    Request("secret in the goal", "secret_in_goal", SECRET_HINT,
            goal="sign in with the password Tr0ub4dor&3 and turn on dark mode"),
    Request("unknown recipe", "not_found", "goalbot recipe list names them; over MCP, list_recipes", recipe="nothing"),
    Request("missing var", "bad_input", VARS_HINT, recipe="buy"),
    Request("off-list page", "off_list", "add its site with --allow-domain (or allow_domain in the settings)",
            goal="turn on dark mode", allow="example.com"),
    Request("dead endpoint", "unreachable", ENDPOINT_HINT, goal="turn on dark mode", endpoint=DEAD),
]


@pytest.fixture
def watched_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """GOALBOT_BROWSER: Chromium behind a script that leaves a mark when anything starts it."""
    mark = tmp_path / "browser-started"
    script = tmp_path / "watched-chromium"
    real = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
    script.write_text(f'#!/bin/sh\ntouch "{mark}"\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("GOALBOT_BROWSER", str(script))
    return mark


def _config(request: Request, model: Any) -> None:
    """The settings every door reads: the config file (XDG_CONFIG_HOME is the test's own)."""
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "goalbot"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f'base_url = "{request.endpoint or model.base_url}"', 'model = "scripted"']
    if request.allow:
        lines.append(f'allow_domain = ["{request.allow}"]')
    (folder / "config.toml").write_text("\n".join(lines) + "\n")


def _recipe_with_a_variable(db_path: Path, page: str) -> None:
    with opened(db_path) as db:
        recipes.save(db, Recipe(name="buy", goal="buy the {{PRODUCT}}", start_url=page, steps=[],
                                variables=["PRODUCT"]))


def _at_command_line(request: Request, db_path: Path, page: str) -> tuple[str, str]:
    if request.recipe:
        done = run_cli("--db", str(db_path), "rerun", request.recipe, "--no-tui", "--yes", "--json")
    else:
        done = run_cli("--db", str(db_path), "run", str(request.goal), "--url", page, "--no-tui", "--yes", "--json")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    error = json.loads(done.stdout)["error"]
    assert request.hint in done.stderr  # the person reads the same hint the program does
    return error["code"], error["hint"]


async def _in_dashboard(request: Request, db_path: Path, page: str) -> tuple[str, str]:
    app = GoalbotApp(db_path=db_path, starter=goal_starter(load_settings({}), db_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: app.run_screen.query_one(GoalInput).has_focus, "the goal box")
        await pilot.press(*f"{request.goal} {page}", "enter")
        await until(pilot, lambda: bool(list(app._notifications)), "a notice")
        notice = list(app._notifications)[-1]
    assert notice.title.startswith("refused: ") and request.hint in notice.message, notice
    return notice.title.removeprefix("refused: "), request.hint


async def _over_mcp(request: Request, db_path: Path, page: str) -> tuple[str, str]:
    server = build_server(load_settings({}), db_path, HostRules())
    async with Client(server) as client:
        if request.recipe:
            result = await client.call_tool("rerun_recipe", {"name": request.recipe, "vars": request.vars})
        else:
            result = await client.call_tool("run_goal", {"goal": request.goal, "url": page, "wait": True})
    assert result.is_error, result.content
    text = result.content[0].text
    problem = json.loads(text[text.index("{"):])
    return problem["code"], problem["hint"]


def _in_a_batch(request: Request, db_path: Path, page: str, tmp_path: Path) -> tuple[str, str]:
    job = {"recipe": request.recipe, "vars": request.vars} if request.recipe else {"goal": request.goal, "url": page}
    jobs = tmp_path / "jobs.jsonl"
    # A good line beside the bad one: nothing starts for it either, and the bad line is named.
    jobs.write_text(json.dumps({"goal": "look at the page", "url": page}) + "\n" + json.dumps(job) + "\n")
    done = run_cli("--db", str(db_path), "batch", str(jobs), "--workers", "2", "--json")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "nothing was started" in done.stderr and f"{jobs}, job 2:" in done.stderr, done.stderr
    refused = [json.loads(line) for line in done.stdout.splitlines()]
    mine = [line for line in refused if line["job"] == 2]
    assert len(mine) == 1, refused
    return mine[0]["error"]["code"], mine[0]["error"]["hint"]


CASES = [pytest.param(door, request, id=f"{request.name} at the {door}") for request in REQUESTS for door in DOORS
         if not (door == "dashboard" and request.recipe)]  # the dashboard takes goals, not reruns


@pytest.mark.parametrize(("door", "request_"), CASES)
async def test_a_bad_request_gets_the_same_code_and_hint_at_every_door(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, watched_browser: Path,
        door: Door, request_: Request) -> None:
    page = hardsite.page("darkmode")
    model = model_server({})
    _config(request_, model)
    _recipe_with_a_variable(db_path, page)
    if door == "command line":
        said = _at_command_line(request_, db_path, page)
    elif door == "dashboard":
        said = await _in_dashboard(request_, db_path, page)
    elif door == "mcp":
        said = await _over_mcp(request_, db_path, page)
    else:
        said = _in_a_batch(request_, db_path, page, tmp_path)
    assert said == (request_.code, request_.hint)
    assert not watched_browser.exists(), f"a browser started for a refused request at the {door}"
    with opened(db_path) as db:
        assert db.execute("select count(*) from sessions").fetchone()[0] == 0


SPELLINGS = [
    ("sign in with the password hunter2 and turn on dark mode", "hunter2"),
    ("my passphrase is correct-horse-battery, unlock the settings", "correct-horse-battery"),
    ("log in with pwd=s3cr3t", "s3cr3t"),
    ("log in as bob / Tr0ub4dor (those are the credentials)", "Tr0ub4dor"),
    ("turn on dark mode with the API key sk-live-4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("비밀번호 hunter2로 로그인해줘", "hunter2"),
    ("enter the login secret word tulip and turn on dark mode", "tulip"),
]


@pytest.mark.parametrize("door", DOORS)
async def test_each_spelling_of_a_secret_in_a_goal_is_refused_at_every_door(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, watched_browser: Path, door: Door) -> None:
    page = hardsite.page("darkmode")
    model = model_server({})
    _config(Request("secret", "secret_in_goal", SECRET_HINT), model)
    seen: list[str] = []
    if door == "command line":
        for goal, _ in SPELLINGS:
            done = run_cli("--db", str(db_path), "run", goal, "--url", page, "--no-tui", "--yes", "--json")
            assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "secret_in_goal", done.stderr
            assert "--secret" in done.stderr
            seen.append(done.stdout + done.stderr)
    elif door == "dashboard":
        app = GoalbotApp(db_path=db_path, starter=goal_starter(load_settings({}), db_path))
        async with app.run_test(size=(160, 45)) as pilot:
            box = app.run_screen.query_one(GoalInput)
            for number, (goal, _) in enumerate(SPELLINGS, 1):
                box.value = f"{goal} {page}"  # Hangul is typed through an input method, not as key presses
                await pilot.press("enter")
                await until(pilot, lambda: len(list(app._notifications)) >= number, "a notice")
            notices = list(app._notifications)
        assert [n.title for n in notices] == ["refused: secret_in_goal"] * len(SPELLINGS)
        seen += [n.message for n in notices]
    elif door == "mcp":
        async with Client(build_server(load_settings({}), db_path, HostRules())) as client:
            for goal, _ in SPELLINGS:
                result = await client.call_tool("run_goal", {"goal": goal, "url": page})
                assert result.is_error and '"code": "secret_in_goal"' in result.content[0].text, result.content
                seen.append(result.content[0].text)
    else:
        jobs = tmp_path / "jobs.jsonl"
        jobs.write_text("".join(json.dumps({"goal": goal, "url": page}) + "\n" for goal, _ in SPELLINGS))
        done = run_cli("--db", str(db_path), "batch", str(jobs), "--json")
        assert done.returncode == 2, done.stderr
        refused = [json.loads(line) for line in done.stdout.splitlines()]
        assert [(r["job"], r["error"]["code"]) for r in refused] == [
            (n, "secret_in_goal") for n in range(1, len(SPELLINGS) + 1)]
        seen.append(done.stdout + done.stderr)
    for _, value in SPELLINGS:
        assert not any(value in said for said in seen)  # a refusal never repeats the secret
    assert not watched_browser.exists() and model.requests == []
    with opened(db_path) as db:
        assert db.execute("select count(*) from sessions").fetchone()[0] == 0

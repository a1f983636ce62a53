"""goalbot as a Python library (`goalbot.api`): the guide's ten-line script runs as written, a GO
is answered by the caller's callback (and only a literal True is a GO), an unattended run ends NOT
GO, events come as an async iterator, and the guards hold as at every door. Real Chromium, the
test site, the scripted model over HTTP, a real SQLite store."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goalbot.api import Asked, Goalbot, GoalbotRefused
from hardsite.server import HardSite
from kit import REPO, answer, call, element, finished, plan, rows, verdict

GUIDE = REPO / "docs" / "guide" / "python.md"


def _delete_script() -> dict[str, Any]:
    return {"planner": [plan("Confirm and delete the project")],
            "navigator": [answer(call("type", index=element("Type DELETE to confirm"), text="DELETE")),
                          answer(call("click", index=element("Delete project"))),
                          finished(summary="the project is deleted")],
            "validator": [verdict(True, "deleted"), verdict(True, "the project is deleted")]}


def _guide_script() -> str:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    return blocks[0]


def test_the_guides_ten_line_script_runs_a_goal_answers_its_go_and_reruns_it(
        hardsite: HardSite, model_server, tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server(_delete_script())
    script = _guide_script()
    assert len(script.strip().splitlines()) <= 10, script
    (tmp_path / "delete.py").write_text(script)
    env = {**os.environ, "MODEL_URL": model.base_url, "SITE": hardsite.page("danger")}
    env.pop("GOALBOT_DB", None)
    ran = subprocess.run([sys.executable, "delete.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=240, stdin=subprocess.DEVNULL)
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("run: ok "), ran.stdout
    assert "TASK_OK" in lines[1], ran.stdout
    assert lines[2] == "rerun: ok", ran.stdout
    # Deleted twice, once a GO each: the run's, then the recipe's rerun (with no model).
    assert hardsite.reached("/api/delete", "POST") == ["{}", "{}"]
    store = tmp_path / "runs.db"
    granted = rows(store, "select count(*) n from events where type = 'APPROVAL_GRANTED'")[0]["n"]
    assert granted == 2
    assert rows(store, "select count(*) n from sessions")[0]["n"] == 2
    assert rows(store, "select max(version) v from recipe_versions where name = 'wipe'")[0]["v"] == 1


@pytest.mark.parametrize("said", ["yes", 1, None], ids=["the-word-yes", "one", "nothing"])
async def test_only_a_literal_true_is_a_go(hardsite: HardSite, model_server, tmp_path: Path, said: Any) -> None:
    hardsite.reset()
    model = model_server(_delete_script())
    asked: list[Asked] = []

    def reply(question: Asked) -> Any:
        asked.append(question)
        return True if question.kind == "plan" else said

    bot = Goalbot(base_url=model.base_url, model="scripted", db=tmp_path / "runs.db")
    result = await bot.run("delete the project", url=hardsite.page("danger"), answer=reply)
    assert result.status == "cancelled" and not result.valid, result
    assert [q.kind for q in asked] == ["plan", "go"], asked
    assert "Delete project" in asked[1].what
    assert hardsite.reached("/api/delete") == []


async def test_an_unattended_run_is_not_go_and_its_events_come_as_they_happen(
        hardsite: HardSite, model_server, tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server(_delete_script())
    bot = Goalbot(base_url=model.base_url, model="scripted", db=tmp_path / "runs.db")
    handle = await bot.start("delete the project", url=hardsite.page("danger"))  # no callback: nobody to ask
    seen = [event.type.value async for event in handle.events()]
    result = await handle.result()
    assert result.status == "cancelled" and "NOT GO" in result.errors[0], result
    assert seen[0] == "TASK_START" and "APPROVAL_REQUEST" in seen and seen[-1] == "TASK_CANCEL", seen
    assert hardsite.reached("/api/delete") == []
    assert [event.type.value for event in bot.events_of(handle.session)] == seen
    listed = bot.sessions()
    assert [row.id for row in listed] == [handle.session] and listed[0].status == "cancelled"
    assert "NOT GO" in bot.report(handle.session)


async def test_a_callback_that_raises_is_a_not_go(hardsite: HardSite, model_server, tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server(_delete_script())

    def reply(question: Asked) -> bool:
        if question.kind == "go":
            raise RuntimeError("the person's window closed")
        return True

    bot = Goalbot(base_url=model.base_url, model="scripted", db=tmp_path / "runs.db")
    result = await bot.run("delete the project", url=hardsite.page("danger"), answer=reply)
    assert result.status == "cancelled", result
    assert hardsite.reached("/api/delete") == []


async def test_the_guards_hold_through_the_api(hardsite: HardSite, model_server, tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server(_delete_script())
    bot = Goalbot(base_url=model.base_url, model="scripted", db=tmp_path / "runs.db")
    # A secret written into the goal, a scheme off the list, a dead endpoint: refused before anything starts.
    with pytest.raises(GoalbotRefused) as written:
        await bot.run("sign in with the password hunter2", url=hardsite.page("danger"), secrets={"PW": "hunter2"})
    assert written.value.code == "secret_in_goal"
    with pytest.raises(GoalbotRefused) as scheme:
        await bot.run("read it", url="file:///etc/passwd")
    assert scheme.value.code in ("bad_input", "off_list")
    dead = Goalbot(base_url="http://127.0.0.1:9/v1", model="scripted", db=tmp_path / "runs.db")
    with pytest.raises(GoalbotRefused) as unreachable:
        await dead.run("delete the project", url=hardsite.page("danger"))
    assert unreachable.value.code == "unreachable", unreachable.value
    assert hardsite.reached("/api/delete") == []
    looked = await bot.observe(hardsite.page("danger"))
    assert any(e.get("name") == "Delete project" for e in looked.elements), looked.elements

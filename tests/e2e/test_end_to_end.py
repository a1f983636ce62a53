"""The whole product, as a user runs it: one command, a real browser, a real server's state."""

from __future__ import annotations

import json
from pathlib import Path

from kit import demo_script, rows, run_cli

GOAL = "sign in and turn on dark mode"


def test_run_reaches_the_goal_and_stores_the_session(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    result = run_cli(
        "--db", str(db_path), "run", GOAL, "--url", f"{site.url}/login",
        "--no-tui", "--yes", "--headless", "--base-url", model.base_url, "--model", "scripted",
        "--api-key", "sk-test-do-not-store-0123456789", "--replay-pictures",
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert model.script.remaining() == {"planner": 0, "navigator": 0, "validator": 0}

    # The site's own record: the agent really signed in and really saved the setting.
    assert site.state.snapshot() == {
        "signed_in": ["demo@example.com"], "dark_mode": {"demo@example.com": True},
    }

    sessions = rows(db_path, "select * from sessions")
    assert len(sessions) == 1
    session = sessions[0]
    assert session["status"] == "ok"
    assert session["goal"] == GOAL
    assert session["steps"] == 2
    assert session["model_calls"] == 5  # 1 plan, 2 navigator turns each ending in finished, 2 verdicts
    assert session["tokens_in"] > 0 and session["tokens_out"] > 0

    events = rows(db_path, "select seq, type, data from events where session_id = ? order by id", session["id"])
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    types = [e["type"] for e in events]
    assert types[0] == "TASK_START" and types[-1] == "TASK_OK"
    assert types.count("STEP_OK") == 2 and "STEP_FAIL" not in types
    assert types.index("PLAN_PROPOSED") < types.index("PLAN_APPROVED") < types.index("STEP_START")

    shots = rows(db_path, "select id, mime, content from artifacts where session_id = ? and kind = 'screenshot'",
                 session["id"])
    assert shots and all(s["content"][:2] == b"\xff\xd8" for s in shots)  # real JPEG files
    looks = [json.loads(e["data"]).get("screenshot") for e in events if e["type"] == "OBSERVATION"]
    assert {s["id"] for s in shots} == set(looks) - {None}  # every picture stored belongs to a look
    assert looks[0] and looks[-1]  # nobody watched live, the replay asked: paced, the start and the end kept

    # The planner's request is kept as it was sent (what `goalbot tune` learns from); the others are not.
    kept = rows(db_path, "select kind, name from artifacts where session_id = ? and kind != 'screenshot'", session["id"])
    assert [(k["kind"], k["name"]) for k in kept] == [("model_request", "planner request")]
    # Neither the API key nor the password typed into the password field reaches the store.
    stored = b"".join(p.read_bytes() for p in db_path.parent.iterdir())
    assert b"sk-test-do-not-store" not in stored
    assert b"demo-pass" not in stored

    listing = run_cli("--db", str(db_path), "sessions")
    assert session["id"] in listing.stdout and "ok" in listing.stdout


def test_tail_prints_readable_lines_and_json(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    run = run_cli("--db", str(db_path), "run", GOAL, "--url", f"{site.url}/login", "--no-tui",
                  "--yes", "--base-url", model.base_url, "--model", "scripted")
    assert run.returncode == 0, run.stderr

    plain = run_cli("--db", str(db_path), "tail", "-n", "5")
    lines = plain.stdout.strip().splitlines()
    assert len(lines) == 5
    assert "TASK_OK" in lines[-1] and "SYSTEM" in lines[-1]

    as_json = run_cli("--db", str(db_path), "tail", "--json", "-n", "1000")
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert events[0]["type"] == "TASK_START" and events[-1]["type"] == "TASK_OK"
    assert {"session_id", "seq", "ts", "type", "actor", "step", "data"} <= set(events[0])

    other = run_cli("--db", str(db_path), "tail", "--session", "no-such-session")
    assert other.stdout == ""

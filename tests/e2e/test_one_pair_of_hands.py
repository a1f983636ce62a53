"""A run and a rerun act through one guarded path: the same download, held write and refusal
read the same in both event streams (types, order, fields), and a rerun keeps its downloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
ACTING = {"ACT_START", "ACT_OK", "ACT_FAIL", "APPROVAL_REQUEST", "APPROVAL_GRANTED", "APPROVAL_DENIED"}


def _session_events(db_path: Path, session: str) -> list[dict[str, Any]]:
    return [dict(type=r["type"], **json.loads(r["data"] or "{}"))
            for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]


def _acting(events: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """What the acting says, type by type with its fields; the navigator's `finished` is no action
    on the page, and a rerun's rung (resolved_by) is what it alone has."""
    return [(e["type"], sorted(set(e) - {"type", "resolved_by"})) for e in events
            if (e["type"] in ACTING or e["type"] == "POLICY" and e["policy"] == "held_writes")
            and not (isinstance(e.get("action"), dict) and e["action"].get("name") == "finished")]


def _sessions(db_path: Path) -> list[str]:
    return [r["id"] for r in rows(db_path, "select id from sessions order by started_at")]


def test_a_download_and_a_held_write_read_the_same_in_a_run_and_its_rerun(hardsite: HardSite, model_server,
                                                                         db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Export the report", "Answer Bob: see you at noon")],
        "navigator": [
            answer(call("click", index=element("Export report")), call("finished", success=True, summary="exported")),
            answer(call("navigate", url=hardsite.page("reply"))),
            answer(call("click", index=element("Reply"))),
            answer(call("type", index=element("Your reply"), text="See you at noon")),
            answer(call("click", index=element("Send")), call("finished", success=True, summary="sent")),
        ],
        "validator": [verdict(True, "exported"), verdict(True, "sent")],
    })
    result, _ = run_goal(db_path, model, hardsite.page("download"), "export the report and answer Bob",
                         "--allow-risky", "--save-recipe", "flow")
    assert result.returncode == 0, result.stderr
    hardsite.reset()
    again = run_cli("--db", str(db_path), "rerun", "flow", "--no-tui", "--yes", "--allow-risky",
                    "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    assert hardsite.reached("/api/reply", "POST") == ['{"text":"See you at noon"}']
    recorded, rerun = (_session_events(db_path, s) for s in _sessions(db_path))
    assert _acting(recorded) == _acting(rerun), (_acting(recorded), _acting(rerun))
    assert [e["type"] for e in rerun if e["type"] == "APPROVAL_GRANTED"] == ["APPROVAL_GRANTED"]
    kept = next(e for e in rerun if e["type"] == "ACT_OK" and e.get("files"))["files"]
    assert [f["name"] for f in kept] == ["report.csv"], kept
    stored = rows(db_path, "select session_id, kind, name from artifacts where id = ?", kept[0]["artifact"])
    assert [tuple(r) for r in stored] == [(_sessions(db_path)[1], "download", "report.csv")]


def test_a_refusal_reads_the_same_in_a_run_and_a_rerun(hardsite: HardSite, model_server, db_path: Path,
                                                        tmp_path: Path) -> None:
    model = model_server({
        "planner": [plan("Open the hosts file"), plan("Open the hosts file")],
        "navigator": [answer(call("navigate", url="file:///etc/hosts")), finished(False, "refused")],
        "validator": [verdict(False, "not opened")] * 3,
    })
    run_goal(db_path, model, hardsite.page("home"), "open the hosts file", "--max-steps", "1")
    # A recipe file that says the same: its first action opens the machine's own file.
    good = model_server({
        "planner": [plan("Export the report")],
        "navigator": [answer(call("click", index=element("Export report")), call("finished", success=True))],
        "validator": [verdict(True, "exported")],
    })
    assert run_goal(db_path, good, hardsite.page("download"), "export", "--save-recipe", "export")[0].returncode == 0
    folder = tmp_path / "export"
    assert run_cli("--db", str(db_path), "recipe", "export", "export", str(folder)).returncode == 0
    workflow = json.loads((folder / "workflow.json").read_text())
    workflow["steps"][0]["actions"].insert(0, {"id": "s1a0", "op": "navigate", "targetKey": None,
                                               "args": {"url": "file:///etc/hosts"}, "expect": []})
    (folder / "workflow.json").write_text(json.dumps({**workflow, "name": "hosts"}))
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    refused = run_cli("--db", str(db_path), "rerun", "hosts", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert refused.returncode == 1, refused.stderr
    by_run, _, by_rerun = (_session_events(db_path, s) for s in _sessions(db_path))
    first = [e for e in _acting(by_run) if e[0].startswith("ACT_")][:1]
    assert first == [("ACT_FAIL", ["action", "error", "message"])], _acting(by_run)
    assert [e for e in _acting(by_rerun) if e[0].startswith("ACT_")][:1] == first, _acting(by_rerun)
    assert [e["error"] for e in by_rerun if e["type"] == "ACT_FAIL"] == ["Refused"]

"""Loops: a recording that downloaded the invoice of each of three orders becomes one pass over the
orders list (`recipe loop`), and reruns on three other orders, then seven, with no model: each
pass finds its button in its own row by the recorded name with today's order in it, checks the
announcement with today's order, and is a step of its own in the events and the report. Real
Chromium, the test site, the scripted model over HTTP for the recording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flows_kit import ORDERS_SCHEMA, orders, orders_script
from kit import rows, run_cli, run_goal
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"


def _record(hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["orders"] = orders(1001, 3)
    schema = tmp_path / "orders.schema.json"
    schema.write_text(json.dumps(ORDERS_SCHEMA))
    result, _ = run_goal(db_path, model_server(orders_script(orders(1001, 3))), hardsite.page("orders"),
                         "download the invoice of every order", "--schema", f"orders={schema}", "--save-recipe", "orders")
    assert result.returncode == 0, result.stderr
    assert sorted(key for key in hardsite.posted if key.startswith("invoice-")) == [
        "invoice-1001", "invoice-1002", "invoice-1003"]


def _rerun(db_path: Path) -> tuple[Any, str, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", "orders", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                     "--json")
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], step=r["step"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, step, data from events where session_id = ? order by seq", session)]
    return result, session, events


def test_a_recorded_pass_over_each_order_reruns_on_three_then_seven_orders_with_no_model(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    _record(hardsite, model_server, db_path, tmp_path)
    made = run_cli("--db", str(db_path), "recipe", "loop", "orders", "--over", "orders", "--steps", "2")
    assert made.returncode == 0, made.stderr
    assert "orders v2 loops" in made.stdout, made.stdout
    shown = run_cli("--db", str(db_path), "recipe", "show", "orders").stdout
    assert "for each record of orders (500 at most), in its row:" in shown, shown
    assert '[each.1] click button "Invoice {{each_id}}"' in shown, shown
    assert "expects: says 'Invoice {{each_id}} downloaded'" in shown or "Invoice {{each_id}} downloaded" in shown

    for first, count in ((2001, 3), (3001, 7)):
        hardsite.reset()
        hardsite.posted["orders"] = orders(first, count)
        result, session, events = _rerun(db_path)
        assert result.returncode == 0, result.stderr
        assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
        wanted = [f"invoice-{first + n}" for n in range(count)]
        assert sorted(key for key in hardsite.posted if key.startswith("invoice-")) == wanted
        assert [json.loads(body)["order"] for body in
                [b for path in wanted for b in hardsite.reached(f"/api/{path}", "POST")]] == [w[8:] for w in wanted]
        passes = [e["description"] for e in events if e["type"] == "STEP_START" and "pass" in e["description"]]
        assert len(passes) == count and passes[0].endswith(f"pass 1 of {count} (id {first}, total 10)"), passes
        loop = [e["message"] for e in events if e["type"] == "POLICY" and e["policy"] == "recipe_loop"]
        assert loop == [f"step 2 goes through the {count} records of orders"]
        clicks = [e for e in events if e["type"] == "ACT_OK" and e["action"].get("name") == "click"]
        assert [e["resolved_by"] for e in clicks] == ["row"] * count
        report = run_cli("--db", str(db_path), "report", session).stdout
        assert f"pass {count} of {count} (id {first + count - 1}" in report, report

    # A row whose button names another order: that pass stops, and nothing of another row is clicked.
    hardsite.reset()
    hardsite.posted["orders"] = [{"id": "4001", "total": 1.0}, {"id": "4002", "total": 2.0, "label": "Invoice 4001"}]
    result, _, events = _rerun(db_path)
    assert result.returncode != 0
    assert hardsite.reached("/api/invoice-4001", "POST") == ['{"order":"4001"}']
    failed = [e for e in events if e["type"] == "ACT_FAIL"]
    assert failed and "this pass's row holds no button 'Invoice 4002'" in failed[-1]["message"], failed

    # Exported, the pass is kept under its step's for_each; imported, it reads as it was written,
    # and a pass's action that marks itself approved is refused by name.
    folder = db_path.parent / "exported"
    assert run_cli("--db", str(db_path), "recipe", "export", "orders", str(folder)).returncode == 0
    workflow = json.loads((folder / "workflow.json").read_text())
    loop = workflow["steps"][1]["for_each"]
    assert loop["over"] == "orders" and [a["op"] for a in loop["actions"]] == ["click"]
    workflow["name"] = "orders-copy"
    (folder / "workflow.json").write_text(json.dumps(workflow))
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0
    assert '[each.1] click button "Invoice {{each_id}}"' in run_cli("--db", str(db_path), "recipe", "show",
                                                                    "orders-copy").stdout
    loop["actions"][0]["approved"] = True
    (folder / "workflow.json").write_text(json.dumps(workflow))
    marked = run_cli("--db", str(db_path), "recipe", "import", str(folder))
    assert marked.returncode == 2 and "step 2 loop action 1 marks a step safe" in marked.stderr, marked.stderr

"""Figures drawn on a canvas, with no JSON to read them from: `extract` hands the model the words
OCR reads in the page's pictures, keeps each value by the label before it on its line, and a rerun
reads the next figures there with no model."""

from __future__ import annotations

import json
from pathlib import Path

from kit import rows, run_cli
from hardsite.server import HardSite
from test_network_rung import DEAD_ENDPOINT, _record, _script

SCHEMA = {"type": "object", "required": ["region", "revenue", "orders"], "additionalProperties": False,
          "properties": {"region": {"type": "string"}, "revenue": {"type": "number"}, "orders": {"type": "integer"}}}


def test_figures_drawn_on_a_canvas_are_read_by_ocr_and_again_with_no_model(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["report"] = {"region": "North", "revenue": 48200, "orders": 1312}
    model = model_server(_script("figures", {"region": "North", "revenue": 48200, "orders": 1312}))
    _, read = _record(db_path, tmp_path, model, hardsite.page("drawn-report"), "figures", SCHEMA)
    assert read["network"] is None and read["place"]["document"] == "ocr", read
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert "Revenue: $48,200" in asked[0]["messages"][-1]["content"]  # what OCR read, handed to the model

    hardsite.posted["report"] = {"region": "South", "revenue": 51375, "orders": 1498}
    rerun = run_cli("--db", str(db_path), "rerun", "figures", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", json.loads(rerun.stdout)["session"])]
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "ocr" and read["data"] == {"region": "South", "revenue": 51375, "orders": 1498}

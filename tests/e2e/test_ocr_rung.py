"""Figures drawn on a canvas, with no JSON to read them from: `extract` hands the model the words
OCR reads in the page's pictures, keeps each value by the label before it on its line, and a rerun
reads the next figures there with no model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_network_rung import _record, _rerun, _script
from test_picture_places import DrawnSite

SCHEMA = {"type": "object", "required": ["region", "revenue", "orders"], "additionalProperties": False,
          "properties": {"region": {"type": "string"}, "revenue": {"type": "number"}, "orders": {"type": "integer"}}}
FIGURES = {1: {"region": "North", "revenue": 48200, "orders": 1312},
           2: {"region": "South", "revenue": 51375, "orders": 1498}}
# The figures only in the page's script, drawn as pixels (the hard site's drawn report fetches
# them as JSON, which the network rung now reads first).
REPORT_PAGE = """<!doctype html><title>Quarterly report</title><h1>Quarterly report</h1>
<canvas id="report" width="640" height="220"></canvas><script>
const figures = %s, pen = document.getElementById("report").getContext("2d");
pen.fillStyle = "#fff"; pen.fillRect(0, 0, 640, 220); pen.fillStyle = "#000"; pen.font = "28px sans-serif";
pen.fillText(`Region: ${figures.region}`, 24, 56);
pen.fillText(`Revenue: $${Number(figures.revenue).toLocaleString("en-US")}`, 24, 112);
pen.fillText(`Orders: ${figures.orders}`, 24, 168);
</script>"""


@pytest.fixture
def report_site() -> Iterator[DrawnSite]:
    site = DrawnSite(lambda day: REPORT_PAGE % json.dumps(FIGURES[day]))
    try:
        yield site
    finally:
        site.stop()


def test_figures_drawn_on_a_canvas_are_read_by_ocr_and_again_with_no_model(
        report_site: DrawnSite, model_server, db_path: Path, tmp_path: Path) -> None:
    model = model_server(_script("figures", FIGURES[1]))
    _, read = _record(db_path, tmp_path, model, report_site.url, "figures", SCHEMA)
    assert read["network"] is None and read["place"]["document"] == "ocr", read
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert "Revenue: $48,200" in asked[0]["messages"][-1]["content"]  # what OCR read, handed to the model

    report_site.day = 2
    rerun, events = _rerun(db_path, "figures")
    assert rerun.returncode == 0, rerun.stderr
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "ocr" and read["data"] == FIGURES[2]

"""A PDF invoice the run downloads is read by its text layer (by OCR when it is a scan): the model
reads it once, each value is kept as the label before it on its line, and a rerun reads the next
invoice there with no model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
SCHEMA = {"type": "object", "required": ["number", "date", "total"], "additionalProperties": False, "properties": {
    "number": {"type": "string"}, "date": {"type": "string"}, "total": {"type": "number"}}}


def _events(db_path: Path, session: str) -> list[dict[str, Any]]:
    return [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]


@pytest.mark.parametrize("scanned", [False, True], ids=["text-layer", "scanned"])
def test_a_downloaded_pdf_invoice_is_read_by_its_lines_and_the_next_one_with_no_model(
        scanned: bool, hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    hardsite.posted["invoice"] = {"number": "A-1042", "date": "2026-11-20", "total": 1234.5, "scanned": scanned}
    schema = tmp_path / "invoice.schema.json"
    schema.write_text(json.dumps(SCHEMA))
    model = model_server({
        "planner": [plan("Download the invoice and read its number, date and total")],
        "navigator": [answer(call("click", index=element("Download invoice"))),
                      answer(call("extract", instruction="the invoice's number, date and total", key="invoice",
                                  schema="invoice")),
                      finished(summary="read the invoice")],
        "extractor": [answer(call("extracted", data={"number": "A-1042", "date": "2026-11-20", "total": 1234.5}))],
        "validator": [verdict(True, "read"), verdict(True, "read")]})
    result, events = run_goal(db_path, model, hardsite.page("invoice"), "read my latest invoice",
                              "--schema", f"invoice={schema}", "--save-recipe", "invoice")
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "model" and read["scope"] == "the downloaded invoice.pdf", read
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert "Total due: $1,234.50 USD" in asked[0]["messages"][-1]["content"]  # the document's text, not the page's
    assert "the downloaded PDF's line 'Total due: $' for total" in run_cli(
        "--db", str(db_path), "recipe", "show", "invoice").stdout

    hardsite.posted["invoice"] = {"number": "A-1107", "date": "2026-12-20", "total": 87.25, "scanned": scanned}
    rerun = run_cli("--db", str(db_path), "rerun", "invoice", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = _events(db_path, json.loads(rerun.stdout)["session"])
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "document" and read["data"] == {"number": "A-1107", "date": "2026-12-20", "total": 87.25}

    # An invoice with no total line is not read wrong: with no model, the rerun fails and says why.
    hardsite.posted["invoice"] = {"number": "A-1108", "date": "2027-01-20", "scanned": scanned}
    failed = run_cli("--db", str(db_path), "rerun", "invoice", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert "invoice.pdf no longer reads as recorded: total: no line begins 'Total due: $'" in failed.stderr, \
        failed.stderr

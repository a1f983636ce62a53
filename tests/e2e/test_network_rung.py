"""Data from where it lives: an `extract` finds the data the model read in the JSON the page
fetched, keeps the place (an address and a path), and a rerun reads it there with no model — for a
chart drawn on a canvas, after the page is redesigned, and for a grid that draws 40 of its 5,000
rows; a signed-in page's own data too, with no credential kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
PRICES_SCHEMA = {"type": "object", "required": ["prices"], "additionalProperties": False, "properties": {
    "prices": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["day", "close"], "additionalProperties": False,
        "properties": {"day": {"type": "string"}, "close": {"type": "number"}}}}}}
STOCK_SCHEMA = {"type": "object", "required": ["items"], "additionalProperties": False, "properties": {
    "items": {"type": "array", "items": {
        "type": "object", "required": ["sku", "name", "stock"], "additionalProperties": False,
        "properties": {"sku": {"type": "string"}, "name": {"type": "string"}, "stock": {"type": "integer"}}}}}}


def _series(start: float) -> list[dict[str, Any]]:
    return [{"day": f"2026-11-{n:02d}", "close": round(start + n * 1.25, 2), "volume": 1000 + n} for n in range(1, 8)]


def _prices(series: list[dict[str, Any]]) -> dict[str, Any]:
    """What the extract should give for what the site served: the schema's fields, in its words."""
    return {"prices": [{"day": p["day"], "close": p["close"]} for p in series]}


def _stock(count: int, shift: int) -> list[dict[str, Any]]:
    return [{"sku": f"SKU-{n:05d}", "name": f"Item {n}", "stock": (n * 7 + shift) % 50, "bin": f"B{n % 9}"}
            for n in range(1, count + 1)]


def _script(key: str, extracted: Any) -> dict[str, Any]:
    return {"planner": [plan(f"Read the {key}")],
            "navigator": [answer(call("extract", instruction=f"every one of the {key}", key=key, schema=key)),
                          finished(summary=f"the {key} are read")],
            "extractor": [answer(call("extracted", data=extracted))],
            "validator": [verdict(True, "read"), verdict(True, "read")]}


def _record(db_path: Path, tmp_path: Path, model: Any, url: str, key: str, schema: dict[str, Any],
            ) -> tuple[Any, dict[str, Any]]:
    path = tmp_path / f"{key}.schema.json"
    path.write_text(json.dumps(schema))
    result, events = run_goal(db_path, model, url, f"read the {key}", "--schema", f"{key}={path}",
                              "--save-recipe", key)
    assert result.returncode == 0, result.stderr
    return result, next(e for e in events if e["type"] == "EXTRACTED")


def _rerun(db_path: Path, name: str) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", name, "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--json")
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]
    return result, events


def test_a_chart_drawn_from_the_pages_json_reruns_with_no_model_even_after_a_redesign(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    served = _series(40.0)
    hardsite.posted["prices"] = {"currency": "USD", "series": served}
    # The chart is pixels: the model reads it (as a vision model would); the page's text has no price.
    model = model_server(_script("prices", _prices(served)))
    _, read = _record(db_path, tmp_path, model, hardsite.page("chart"), "prices", PRICES_SCHEMA)
    assert read["read_by"] == "model" and read["place"] is None  # nothing on the page to read again
    assert read["network"]["path"] == "/api/prices"
    shown = run_cli("--db", str(db_path), "recipe", "show", "prices").stdout
    assert "reads: the page's own data from GET /api/prices" in shown, shown

    for layout, start in (("", 52.5), ("new", 61.0)):  # the next day's prices; then the redesign
        hardsite.variant = layout
        today = _series(start)
        hardsite.posted["prices"] = {"currency": "USD", "series": today}
        result, events = _rerun(db_path, "prices")
        assert result.returncode == 0, result.stderr
        assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
        read = next(e for e in events if e["type"] == "EXTRACTED")
        assert read["read_by"] == "network" and read["valid"] and read["data"] == _prices(today), read
        assert "read from the page's own data, no model" in result.stderr
    looks = [e for e in events if e["type"] == "OBSERVATION"]
    assert looks[-1]["elements"] >= 2  # the redesign's Week and Month buttons: it read the new page
    assert "read on " in (report := run_cli("--db", str(db_path), "report").stdout)
    assert "from the page's own JSON, no model, fits its schema" in report, report
    figures = json.loads(run_cli("--db", str(db_path), "stats", "--json").stdout)
    assert figures["extraction_rungs"] == {"network": 2 / 3, "model": 1 / 3}
    said = " ".join(run_cli("--db", str(db_path), "stats").stdout.split())
    assert "extractions read by network 67% · model 33% (no model 67%)" in said, said


def test_a_grid_that_draws_40_of_its_5000_rows_is_read_whole_and_reruns_with_no_model(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    served = _stock(5000, 0)
    hardsite.posted["stock"] = {"total": 5000, "items": served}
    seen = [{k: item[k] for k in ("sku", "name", "stock")} for item in served[:40]]  # the rows on screen
    model = model_server(_script("items", {"items": seen}))
    _, read = _record(db_path, tmp_path, model, hardsite.page("grid"), "items", STOCK_SCHEMA)
    assert read["read_by"] == "model" and len(read["data"]["items"]) == 5000  # every row, not the 40 drawn
    assert read["data"]["items"][4999] == {"sku": "SKU-05000", "name": "Item 5000", "stock": (5000 * 7) % 50}

    today = _stock(5000, 3)
    hardsite.posted["stock"] = {"total": 5000, "items": today}
    result, events = _rerun(db_path, "items")
    assert result.returncode == 0, result.stderr
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "network"
    assert read["data"] == {"items": [{k: item[k] for k in ("sku", "name", "stock")} for item in today]}


@pytest.mark.parametrize("via", ["auth", "cookie", "field", "post"])
def test_a_signed_in_pages_own_data_is_read_and_its_credentials_are_never_kept(
        via: str, hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    """The page fetches its data with a bearer token, with a cookie, or in a body that also carries
    a token: the page's own data, read from its JSON and again on a rerun with no model, the token
    field left out. The answer to a POST is never read. No credential is stored."""
    hardsite.reset()
    entries = [{"label": f"Entry {n}", "amount": 10 * n} for n in range(1, 6)]

    def serve(rows: list[dict[str, Any]]) -> None:
        hardsite.posted["statement"] = {"entries": rows}
        hardsite.posted["statement-with-token"] = {"entries": rows, "session_token": "f1eld-token-553"}
        hardsite.post_answers["/api/statement-post"] = {"entries": rows}

    serve(entries)
    schema = {"type": "object", "required": ["entries"], "properties": {"entries": {"type": "array", "items": {
        "type": "object", "required": ["label", "amount"],
        "properties": {"label": {"type": "string"}, "amount": {"type": "number"}}}}}}
    model = model_server(_script("entries", {"entries": entries}))
    _, read = _record(db_path, tmp_path, model, hardsite.page("private") + f"?via={via}", "entries", schema)
    fetched = {"post": "/api/statement-post", "field": "/api/statement-with-token"}.get(via, "/api/statement")
    assert hardsite.reached(fetched)
    assert read["valid"] and (read["network"] or {}).get("path") == (None if via == "post" else fetched), read

    today = [{"label": f"Entry {n}", "amount": 7 * n + 1} for n in range(1, 6)]
    serve(today)
    result, events = _rerun(db_path, "entries")
    valid = [e for e in events if e["type"] == "EXTRACTED" and e["valid"]]
    if via == "post":
        assert result.returncode != 0 and not valid
    else:
        assert result.returncode == 0, result.stderr
        assert [(e["read_by"], e["data"]) for e in valid] == [("network", {"entries": today})]
    stored = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob(f"{db_path.name}-*"))
    for credential in (b"t0ken-value-991", b"c00kie-value-778", b"f1eld-token-553"):
        assert credential not in stored


def test_the_first_rows_of_a_list_drawn_whole_stay_what_the_model_read(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    """"The two newest orders" of a table the page draws whole, from a JSON of three: neither the
    page nor the JSON turns them into three, now or on a rerun."""
    hardsite.reset()
    hardsite.posted["orders"] = [{"id": "A-1", "total": 12.0}, {"id": "A-2", "total": 30.5},
                                 {"id": "A-3", "total": 7.25}]
    schema = {"type": "object", "required": ["orders"], "properties": {"orders": {"type": "array", "items": {
        "type": "object", "required": ["id", "total"],
        "properties": {"id": {"type": "string"}, "total": {"type": "number"}}}}}}
    two = {"orders": [{"id": "A-1", "total": 12.0}, {"id": "A-2", "total": 30.5}]}
    model = model_server(_script("orders", two))
    _, read = _record(db_path, tmp_path, model, hardsite.page("orders"), "orders", schema)
    assert read["data"] == two and read["network"] is None, read


def test_a_run_that_only_reads_its_answer_becomes_a_recipe_read_again_each_day_with_no_model(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    hardsite.variant = ""
    served = _series(40.0)
    hardsite.posted["prices"] = {"currency": "USD", "series": served}
    schema = tmp_path / "prices.schema.json"
    schema.write_text(json.dumps(PRICES_SCHEMA))
    # No action at all: the run's answer is read off the page it starts on (`--output-schema`).
    model = model_server({"planner": [plan("Read this week's closing prices")],
                          "navigator": [finished(summary="the chart shows the week")],
                          "validator": [verdict(True, "read"), verdict(True, "read")],
                          "extractor": [answer(call("extracted", data=_prices(served)))]})
    recorded, _ = run_goal(db_path, model, hardsite.page("chart"), "read this week's closing prices",
                           "--output-schema", str(schema), "--save-recipe", "closing")
    assert recorded.returncode == 0, recorded.stderr
    assert "saved recipe closing v1" in recorded.stderr, recorded.stderr
    shown = run_cli("--db", str(db_path), "recipe", "show", "closing").stdout
    assert "GET /api/prices" in shown, shown
    for start in (52.5, 61.0):  # two more mornings
        today = _series(start)
        hardsite.posted["prices"] = {"currency": "USD", "series": today}
        result, events = _rerun(db_path, "closing")
        assert result.returncode == 0, result.stderr
        assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
        assert json.loads(result.stdout)["result"] == _prices(today), result.stdout

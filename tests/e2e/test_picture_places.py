"""Lists drawn in pixels — a table that is a PNG, a bar chart on a canvas — read with their words'
positions: the extractor is handed one row (or one bar) a line, the recipe keeps each field as the
cell it sits in, and a rerun on another day's picture reads every value with no model, exactly as
the site served it (numbers as numbers)."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hardsite.market_fixture import MarketSite, market_site  # noqa: F401  (a fixture)
from kit import run_cli, run_goal
from test_network_rung import _record, _rerun, _script

TABLE_SCHEMA = {"type": "object", "required": ["rows"], "additionalProperties": False, "properties": {
    "rows": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["ticker", "price", "change"], "additionalProperties": False,
        "properties": {"ticker": {"type": "string"}, "price": {"type": "number"}, "change": {"type": "number"}}}}}}
CHART_SCHEMA = {"type": "object", "required": ["bars"], "additionalProperties": False, "properties": {
    "bars": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["name", "close"], "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "close": {"type": "number"}}}}}}
NAMES = ["ACME", "BOLT", "CRUX", "DYNA", "EPIC", "FLUX", "GRID", "HALO", "IONS"]
# A chart as real pages draw one: bars of the day's closes, each value above its bar, the name
# under it, a title, axis ticks and grid lines; nothing of it in the page's text.
CHART_PAGE = """<!doctype html><title>Closes</title><h1>Closing prices</h1>
<canvas id="c" width="620" height="300"></canvas><script>
const bars = %s, c = document.getElementById("c").getContext("2d"), highest = Math.max(...bars.map(b => b.close));
c.fillStyle = "#fff"; c.fillRect(0, 0, 620, 300); c.font = "13px sans-serif"; c.textAlign = "center";
for (let t = 0; t <= 4; t++) { const y = 260 - t * 50; c.fillStyle = "#888"; c.fillText(String(Math.round(highest * t / 4)), 20, y + 4);
  c.fillStyle = "#e4e4e4"; c.fillRect(40, y, 570, 1); }
bars.forEach((b, n) => { const x = 50 + n * 62, h = Math.round(200 * b.close / highest);
  c.fillStyle = n %% 2 ? "#d64545" : "#2e9e63"; c.fillRect(x, 260 - h, 44, h); c.fillStyle = "#222";
  c.fillText(b.close.toFixed(2), x + 22, 260 - h - 6); c.fillText(b.name, x + 22, 278); });
</script>"""

# The same closes as horizontal bars: the name left of each bar, the value right of its end.
ACROSS_PAGE = """<!doctype html><title>Closes</title><h1>Closing prices</h1>
<canvas id="c" width="620" height="330"></canvas><script>
const bars = %s, c = document.getElementById("c").getContext("2d"), highest = Math.max(...bars.map(b => b.close));
c.fillStyle = "#fff"; c.fillRect(0, 0, 620, 330); c.font = "13px sans-serif"; c.textBaseline = "middle";
bars.forEach((b, n) => { const y = 20 + n * 34, w = Math.round(420 * b.close / highest);
  c.fillStyle = "#3b6fb6"; c.fillRect(70, y, w, 24); c.fillStyle = "#222"; c.textAlign = "right";
  c.fillText(b.name, 62, y + 12); c.textAlign = "left"; c.fillText(b.close.toFixed(2), 76 + w, y + 12); });
</script>"""
# A line through the closes, each point labelled with its value, the names along the axis.
LINE_PAGE = """<!doctype html><title>Closes</title><h1>Closing prices</h1>
<canvas id="c" width="620" height="300"></canvas><script>
const bars = %s, c = document.getElementById("c").getContext("2d"), highest = Math.max(...bars.map(b => b.close));
c.fillStyle = "#fff"; c.fillRect(0, 0, 620, 300); c.font = "13px sans-serif"; c.textAlign = "center";
c.strokeStyle = "#e07b00"; c.lineWidth = 2; c.beginPath();
const at = bars.map((b, n) => [60 + n * 64, 250 - Math.round(200 * b.close / highest)]);
at.forEach(([x, y], n) => n ? c.lineTo(x, y) : c.moveTo(x, y)); c.stroke();
bars.forEach((b, n) => { const [x, y] = at[n]; c.fillStyle = "#e07b00"; c.beginPath(); c.arc(x, y, 3, 0, 7); c.fill();
  c.fillStyle = "#222"; c.fillText(b.close.toFixed(2), x, y - 9); c.fillText(b.name, x, 282); });
</script>"""
CHARTS = {"bars": CHART_PAGE, "bars across": ACROSS_PAGE, "a line": LINE_PAGE}


def _bars(day: int) -> list[dict[str, Any]]:
    rng = random.Random(day)
    return [{"name": name, "close": round(rng.uniform(30, 950), 2)} for name in NAMES]


class DrawnSite:
    """A page of the tests' own, drawn as `draw(day)` says, the numbers only in its script: no
    JSON for the network rung, no text for the places rung, only pixels."""

    def __init__(self, draw: Callable[[int], str]) -> None:
        self.day, self.draw = 1, draw
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body = site.draw(site.day).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/drawn"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(params=list(CHARTS))
def chart_site(request: pytest.FixtureRequest) -> Iterator[DrawnSite]:
    """The day's closes on a canvas of the tests' own, in each kind of chart: the market site's
    chart names Korean companies, which no font on this machine draws."""
    site = DrawnSite(lambda day: CHARTS[request.param] % json.dumps(_bars(day)))
    try:
        yield site
    finally:
        site.stop()


def _extractor_text(model: Any) -> str:
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert asked, "the extractor was never asked"
    return asked[0]["messages"][-1]["content"]


def _rerun_read(db_path: Path, name: str) -> dict[str, Any]:
    result, events = _rerun(db_path, name)
    assert result.returncode == 0, result.stderr + result.stdout
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    return next(e for e in events if e["type"] == "EXTRACTED")


@pytest.mark.parametrize("rules", [True, False], ids=["with rules", "without rules"])
def test_a_table_drawn_as_a_picture_keeps_its_rows_and_reruns_on_another_day_with_no_model(
        market_site: MarketSite, model_server, db_path: Path, tmp_path: Path, rules: bool) -> None:  # noqa: F811
    market = market_site.market
    market.vary(rules=rules)
    served = {"rows": market.truth("table")}
    model = model_server(_script("rows", served))
    _, read = _record(db_path, tmp_path, model, market_site.page("/table-page"), "rows", TABLE_SCHEMA)
    shown = _extractor_text(model)
    for row in served["rows"]:  # one row a line, its cells in order
        assert f"{row['ticker']} | {row['price']:.2f} | {row['change']:+.2f}" in shown, shown
    assert read["place"]["document"] == "ocr" and read["place"]["records"] == "rows", read
    shown = run_cli("--db", str(db_path), "recipe", "show", "rows").stdout
    assert "rows from each line of the page's pictures (OCR): ticker in cell 0, price in cell 1" in shown, shown

    market.day = 2
    again = _rerun_read(db_path, "rows")
    assert again["read_by"] == "ocr" and again["data"] == {"rows": market.truth("table")}
    assert again["data"] != served


def test_a_chart_on_a_canvas_pairs_each_value_with_its_label_and_reruns_with_no_model(
        chart_site: DrawnSite, model_server, db_path: Path, tmp_path: Path) -> None:
    served = {"bars": _bars(1)}
    model = model_server(_script("bars", served))
    _, read = _record(db_path, tmp_path, model, chart_site.url, "bars", CHART_SCHEMA)
    shown = _extractor_text(model)
    for bar in served["bars"]:  # the value drawn at the bar's end, wherever that is, with the bar's name
        assert f"{bar['close']:.2f} | {bar['name']}" in shown or f"{bar['name']} | {bar['close']:.2f}" in shown, shown
    assert read["place"]["document"] == "ocr" and read["place"]["records"] == "bars", read

    chart_site.day = 2
    again = _rerun_read(db_path, "bars")
    assert again["read_by"] == "ocr" and again["data"] == {"bars": _bars(2)}


@pytest.mark.parametrize("chart_site", ["bars"], indirect=True)
def test_with_vision_the_extractor_sees_the_picture_itself_beside_what_ocr_read(
        chart_site: DrawnSite, model_server, db_path: Path, tmp_path: Path) -> None:
    served = {"bars": _bars(1)}
    model = model_server(_script("bars", served))
    schema = tmp_path / "bars.schema.json"
    schema.write_text(json.dumps(CHART_SCHEMA))
    result, events = run_goal(db_path, model, chart_site.url, "read the bars", "--schema", f"bars={schema}",
                              "--vision")
    assert result.returncode == 0, result.stderr
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    content = asked[0]["messages"][-1]["content"]
    assert isinstance(content, list), content
    assert [part for part in content if part.get("type") == "image_url"]
    assert f"{served['bars'][0]['close']:.2f} | {served['bars'][0]['name']}" in content[0]["text"]
    assert next(e for e in events if e["type"] == "EXTRACTED")["data"] == served

"""A list read is the whole list the page holds, or it says it is not (issue 70): the market's
virtualised grid of 5,000 rows, whose total is written twice and whose rows say "Loading…" until
their page comes, is scrolled through and read whole (and reruns whole on another day, no model);
a list the page says is longer than what could be read is a short read naming how many of how
many; an answer with no records for a page that shows some is `ExtractionEmpty`."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from hardsite.market_fixture import MarketSite, market_site  # noqa: F401  (a fixture)
from kit import answer, call, finished, plan, rows, run_cli, run_goal, verdict

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model
GRID_SCHEMA = {"type": "object", "required": ["rows"], "additionalProperties": False, "properties": {
    "rows": {"type": "array", "items": {
        "type": "object", "required": ["ticker", "price", "volume"], "additionalProperties": False,
        "properties": {"ticker": {"type": "string"}, "price": {"type": "number"}, "volume": {"type": "integer"}}}}}}
QUOTES_SCHEMA = {"type": "object", "required": ["quotes"], "properties": {"quotes": {"type": "array", "items": {
    "type": "object", "required": ["ticker", "price"],
    "properties": {"ticker": {"type": "string"}, "price": {"type": "number"}}}}}}
SEEN = 20  # rows of the grid the model copies from its first look: the first ones drawn


def _script(key: str, extracted: Any) -> dict[str, Any]:
    return {"planner": [plan(f"Read the {key}")],
            "navigator": [answer(call("extract", instruction=f"every one of the {key}", key=key, schema=key)),
                          finished(summary=f"the {key} are read")],
            "extractor": [answer(call("extracted", data=extracted))],
            "validator": [verdict(True, "read"), verdict(True, "read")]}


def _schema_file(tmp_path: Path, key: str, schema: dict[str, Any]) -> Path:
    path = tmp_path / f"{key}.schema.json"
    path.write_text(json.dumps(schema))
    return path


def _extract(db_path: Path, tmp_path: Path, model: Any, url: str, key: str, schema: dict[str, Any],
             *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    return run_goal(db_path, model, url, f"read the {key}", "--schema", f"{key}={_schema_file(tmp_path, key, schema)}",
                    *flags)


def _session_events(db_path: Path, session: str) -> list[dict[str, Any]]:
    return [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]


@pytest.mark.parametrize("no_total", [False, True], ids=["total written twice", "no total, grows as scrolled"])
def test_a_grid_whose_rows_load_late_is_scrolled_through_read_whole_and_reruns_whole(
        market_site: MarketSite, model_server: Any, db_path: Path, tmp_path: Path, no_total: bool) -> None:
    """The model copies the first rows it sees; the grid holds 5,000, each page of 100 saying
    "Loading…" until it comes: every row is read, none of them a placeholder, and a rerun on
    another day reads that day's 5,000 with no model."""
    market = market_site.market
    market.vary(no_total=no_total)
    market.grid_delay_ms = 100  # still far longer than a frame: every page shows "Loading…" first
    truth = market.truth("grid")
    assert market.truth("grid_total") == len(truth) == 5000
    model = model_server(_script("rows", {"rows": truth[:SEEN]}))
    result, events = _extract(db_path, tmp_path, model, market_site.page("/grid"), "rows", GRID_SCHEMA,
                              "--save-recipe", "grid")
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["valid"] and read["read_by"] == "model", read["errors"]
    assert read["data"]["rows"] == truth  # every row, numbers as numbers; no "Loading…" among them

    market.reset(day=2)  # another day's numbers, the same grid
    market.vary(no_total=no_total)
    market.grid_delay_ms = 100
    assert market.truth("grid") != truth
    rerun = run_cli("--db", str(db_path), "rerun", "grid", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json", timeout=240)
    assert rerun.returncode == 0, rerun.stderr
    events = _session_events(db_path, json.loads(rerun.stdout)["session"])
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "places" and read["data"]["rows"] == market.truth("grid")


# -- pages of the tests' own: a list the page says is longer than what it lets be read -----------

def _stock(count: int) -> list[dict[str, Any]]:
    return [{"ticker": f"T{n:04d}", "price": round(10 + n * 0.37, 2), "volume": 1000 + n * 13} for n in range(count)]


def _rows_html(records: list[dict[str, Any]]) -> str:
    return "".join(f"<tr><td>{r['ticker']}</td><td>{r['price']:.2f}</td><td>{r['volume']:,}</td></tr>" for r in records)


# A paged table: 40 rows drawn, the total written in the heading and again under it.
PAGED = """<!doctype html><html><head><meta charset="utf-8"><title>Screener</title></head><body>
<h1>Screener · 5,000 rows</h1><p>Showing 5,000 rows, 40 to a page.</p>
<table><thead><tr><th>Ticker</th><th>Price</th><th>Volume</th></tr></thead><tbody>{rows}</tbody></table>
<a href="?page=2">Next page</a></body></html>"""

# A virtualised list of 1,200 rows whose heading and paragraph both say 5,000.
VIRTUAL = """<!doctype html><html><head><meta charset="utf-8"><title>Stock</title><style>
#box { height: 400px; overflow-y: auto; position: relative; } .row { position: absolute; height: 20px; display: flex; gap: 2em; }
</style></head><body><h2>5,000 rows</h2><p>The screener lists 5,000 rows.</p><div id="box"><div id="spacer"></div></div>
<script>
  const data = DATA, box = document.getElementById("box"), spacer = document.getElementById("spacer");
  function draw() {
    const first = Math.floor(box.scrollTop / 20);
    spacer.replaceChildren();
    spacer.style.height = `${data.length * 20}px`;
    data.slice(first, first + 30).forEach((item, n) => {
      const row = document.createElement("div");
      row.className = "row";
      row.style.top = `${(first + n) * 20}px`;
      for (const text of [item.ticker, item.price.toFixed(2), item.volume.toLocaleString("en-US")]) {
        const cell = document.createElement("span");
        cell.textContent = text;
        row.append(cell);
      }
      spacer.append(row);
    });
  }
  box.addEventListener("scroll", draw);
  draw();
</script></body></html>"""

# Twelve quotes in a table, no count written anywhere.
TABLE = """<!doctype html><html><head><meta charset="utf-8"><title>Quotes</title></head><body>
<h1>Today's quotes</h1><table><thead><tr><th>Ticker</th><th>Price</th></tr></thead><tbody>{rows}</tbody></table>
</body></html>"""


def _quote_rows(count: int) -> str:
    return "".join(f"<tr><td>Q{n:02d}</td><td>{10 + n:.2f}</td></tr>" for n in range(count))


# Nothing matched: an empty answer is the right one here.
NONE_FOUND = """<!doctype html><html><head><meta charset="utf-8"><title>Screener</title></head><body>
<h1>Screener</h1><p>No results match your filter.</p>
<table><thead><tr><th>Ticker</th><th>Price</th><th>Volume</th></tr></thead><tbody></tbody></table></body></html>"""


@pytest.fixture
def own_pages() -> Iterator[str]:
    pages = {"/paged": PAGED.format(rows=_rows_html(_stock(40))),
             "/virtual": VIRTUAL.replace("DATA", json.dumps(_stock(1200))),
             "/none": NONE_FOUND,
             "/table": TABLE.format(rows=_quote_rows(12))}

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = pages.get(self.path.split("?")[0], "not here").encode()
            self.send_response(200 if self.path.split("?")[0] in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("page", "read", "said"), [
    ("/paged", 40, "40 of 5,000 records were read (the page says it holds 5,000)"),
    ("/virtual", 30, "30 of 5,000 records were read (the page says it holds 5,000): "
                     "rows: 1200 rows were read, and the page says 5000"),
], ids=["paged table", "virtualised list"])
def test_a_list_read_shorter_than_the_total_the_page_writes_twice_is_a_short_read(
        own_pages: str, model_server: Any, db_path: Path, tmp_path: Path, page: str, read: int, said: str) -> None:
    """The model copies every row drawn; the page says, twice, that it holds 5,000: the extract
    fails naming how many of how many, and a run whose answer it is fails (exit 1), never exit 0."""
    drawn = {"rows": _stock(read)}
    model = model_server(_script("rows", drawn))
    _, events = _extract(db_path, tmp_path, model, own_pages + page, "rows", GRID_SCHEMA)
    failed = next(e for e in events if e["type"] == "ACT_FAIL" and e["action"]["name"] == "extract")
    assert failed["error"] == "ExtractionShort" and said in failed["message"], failed
    extracted = next(e for e in events if e["type"] == "EXTRACTED")
    assert not extracted["valid"] and extracted["errors"] == [failed["message"].split(": ", 1)[1]]

    script = {"planner": [plan("Read the rows")], "navigator": [finished(summary="the rows are on the page")],
              "validator": [verdict(True, "the rows are listed")], "extractor": [answer(call("extracted", data=drawn))]}
    result, _ = run_goal(db_path, model_server(script), own_pages + page, "list every row",
                         "--output-schema", str(_schema_file(tmp_path, "answer", GRID_SCHEMA)), "--json")
    assert result.returncode == 1 and said in result.stderr, result.stderr
    assert json.loads(result.stdout)["status"] == "failed"


@pytest.mark.parametrize(("page", "why"), [
    ("quotes", "the page's own data holds 12"),
    ("/table", "the page draws 12 rows of data"),
], ids=["a chart on a canvas", "a table"])
def test_an_answer_with_no_records_for_a_page_that_shows_them_is_extraction_empty(
        market_site: MarketSite, own_pages: str, model_server: Any, db_path: Path, tmp_path: Path,
        page: str, why: str) -> None:
    """The market's chart of 12 quotes, drawn on a canvas from its own JSON, and a table of 12 rows:
    `{"quotes": []}` fits a schema with no minItems, and is still no answer; a page that says it
    found none answers [] rightly."""
    assert len(market_site.market.truth("quotes")) == 12
    url = market_site.page("/quotes") if page == "quotes" else own_pages + page
    _, events = _extract(db_path, tmp_path, model_server(_script("quotes", {"quotes": []})), url, "quotes",
                         QUOTES_SCHEMA)
    failed = next(e for e in events if e["type"] == "ACT_FAIL" and e["action"]["name"] == "extract")
    assert failed["error"] == "ExtractionEmpty", failed
    assert failed["message"] == f"quotes: the answer holds no records, and {why}", failed

    result, events = _extract(db_path, tmp_path, model_server(_script("quotes", {"quotes": []})),
                              own_pages + "/none", "quotes", QUOTES_SCHEMA)
    assert result.returncode == 0, result.stderr
    assert [e["valid"] for e in events if e["type"] == "EXTRACTED"][-1] is True


SUMMARY_SCHEMA = {"type": "object", "required": ["total_volume", "advancing", "declining", "turnover"],
                  "additionalProperties": False, "properties": {
                      "total_volume": {"type": "integer"}, "advancing": {"type": "integer"},
                      "declining": {"type": "integer"}, "turnover": {"type": "number"}}}


def test_a_summary_whose_figure_says_loading_at_first_reruns_with_the_figure_it_fills_in(
        market_site: MarketSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    """"Turnover" says "Loading…" until the page's late request answers, and the total volume is
    written twice: a rerun on another day waits for the figure, never reads the placeholder."""
    market = market_site.market
    model = model_server(_script("summary", market.truth("summary")))
    result, events = _extract(db_path, tmp_path, model, market_site.page("/summary"), "summary", SUMMARY_SCHEMA,
                              "--save-recipe", "summary")
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["valid"] and read["data"] == market.truth("summary"), read

    market.reset(day=3)
    market.summary_delay_ms = 5000  # later than a look waits for a quiet page (2.5 s at most)
    rerun = run_cli("--db", str(db_path), "rerun", "summary", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = _session_events(db_path, json.loads(rerun.stdout)["session"])
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "places" and read["data"] == market.truth("summary"), read
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]

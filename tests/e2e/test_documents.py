"""PDFs as sites hand them out: shown in the browser's viewer (inline, or in a new tab) as well as
downloaded, read the same way, an invoice's items kept as the shape of their lines so a rerun
reads another invoice's items, however many, with no model; and hostile PDFs, small files that
keep a PDF library busy for minutes, bounded: the run says why it did not read one, and a signal
ends the process while one is read."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Iterator

import pytest

from kit import REPO, answer, call, element, finished, plan, rows, run_cli, run_goal, verdict, wait_until
from hardsite.billing import Billing
from hardsite.market_fixture import market_site  # noqa: F401  (a fixture)

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
ITEM = {"type": "object", "required": ["description", "qty", "unit_price", "amount"], "additionalProperties": False,
        "properties": {"description": {"type": "string"}, "qty": {"type": "integer"},
                       "unit_price": {"type": "number"}, "amount": {"type": "number"}}}
SCHEMA = {"type": "object", "required": ["number", "date", "items", "total"], "additionalProperties": False,
          "properties": {"number": {"type": "string"}, "date": {"type": "string"},
                         "items": {"type": "array", "items": ITEM}, "total": {"type": "number"}}}
NOVEMBER = {"number": "A-1042", "date": "2026-11-20", "total": 22.0, "items": [
    {"description": "Blue widget", "qty": 2, "unit_price": 3.5, "amount": 7.0},
    {"description": "Red gadget, large", "qty": 1, "unit_price": 12.0, "amount": 12.0},
    {"description": "Cable 10 m", "qty": 3, "unit_price": 1.0, "amount": 3.0}]}
DECEMBER = {"number": "A-1107", "date": "2026-12-20", "total": 1069.99, "items": [
    {"description": "Paper A4, 500 sheets", "qty": 4, "unit_price": 5.25, "amount": 21.0},
    {"description": "Laser printer", "qty": 1, "unit_price": 999.99, "amount": 999.99},
    {"description": "Ink", "qty": 1, "unit_price": 30.0, "amount": 30.0},
    {"description": "Pens, box of 12", "qty": 2, "unit_price": 4.5, "amount": 9.0},
    {"description": "Stapler", "qty": 1, "unit_price": 10.0, "amount": 10.0}]}
LINKS = {"inline": "View invoice", "new-tab": "Open invoice in a new tab", "download": "Download invoice"}


@pytest.fixture
def billing(chromium: None) -> Iterator[Billing]:
    with Billing() as running:
        yield running


def _events(db_path: Path, session: str | None = None) -> list[dict[str, Any]]:
    where, params = ("where session_id = ?", (session,)) if session else ("", ())
    return [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, f"select type, data from events {where} order by session_id, seq", *params)]


def _schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "invoice.schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def _reading_script(link: str, extracted: Any = None) -> dict[str, Any]:
    navigator = [answer(call("click", index=element(link))),
                 answer(call("extract", instruction="the invoice's number, date, items and total", key="invoice",
                             schema="invoice"))]
    return {"planner": [plan("Open the invoice and read it")],
            "navigator": navigator + [finished(ok=extracted is not None, summary="read the invoice")],
            "extractor": [answer(call("extracted", data=extracted))] if extracted is not None else [],
            "validator": [verdict(True, "read")] * 2}


@pytest.mark.parametrize("how", list(LINKS))
def test_an_invoice_shown_or_downloaded_is_read_and_the_next_ones_items_with_no_model(
        how: str, billing: Billing, model_server, db_path: Path, tmp_path: Path) -> None:
    billing.invoice = NOVEMBER
    model = model_server(_reading_script(LINKS[how], NOVEMBER))
    result, events = run_goal(db_path, model, billing.url, "read my latest invoice",
                              "--schema", f"invoice={_schema_file(tmp_path)}", "--save-recipe", "invoice")
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "model" and read["valid"], read
    assert "invoice.pdf" in read["scope"], read
    asked = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert "Red gadget, large 1 $12.00 $12.00" in asked[0]["messages"][-1]["content"]  # the PDF's text, fetched
    assert "lines shaped '{description} {qty} ${unit_price} ${amount}' for items" in run_cli(
        "--db", str(db_path), "recipe", "show", "invoice").stdout
    assert billing.refused == []  # fetched again with the tab's cookie

    billing.invoice = DECEMBER  # another day: five items, not three
    rerun = run_cli("--db", str(db_path), "rerun", "invoice", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = _events(db_path, json.loads(rerun.stdout)["session"])
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "document" and read["data"] == DECEMBER, read


# -- hostile documents ---------------------------------------------------------------------------


def _pdf(objects: list[bytes]) -> bytes:
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    packed = zlib.compress(data, 9)
    return b"<< %s/Length %d /Filter /FlateDecode >>\nstream\n" % (extra, len(packed)) + packed + b"\nendstream"


HEAVY = b"BT /F1 1 Tf 1 0 0 1 10 10 Tm (a) Tj ET\n"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def shared_stream_pdf(pages: int = 24) -> bytes:
    """Every page draws the one heavy stream (object 4): a few kilobytes that decode to megabytes."""
    kids = " ".join(f"{5 + n} 0 R" for n in range(pages)).encode()
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> " \
           b"/Contents 4 0 R >>"
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
                 FONT, _stream(HEAVY * 100_000)] + [page] * pages)


def nested_forms_pdf(pages: int = 24, draws: int = 400) -> bytes:
    """Each page's own drawing is small (the size bound passes it), but draws one heavy form
    hundreds of times: only a deadline bounds it."""
    kids = " ".join(f"{6 + n} 0 R" for n in range(pages)).encode()
    form = _stream(HEAVY * 20_000, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                                   b"/Resources << /Font << /F1 3 0 R >> >> ")
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> " \
           b"/XObject << /X0 4 0 R >> >> /Contents 5 0 R >>"
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
                 FONT, form, _stream(b"/X0 Do\n" * draws)] + [page] * pages)


def _ended_extract(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["type"] in ("ACT_OK", "ACT_FAIL") and e["action"]["name"] == "extract")


@pytest.mark.parametrize("how", ["inline", "download"])
def test_a_pdf_whose_pages_share_one_heavy_stream_is_refused_at_once(
        how: str, billing: Billing, model_server, db_path: Path, tmp_path: Path) -> None:
    billing.pdf = shared_stream_pdf()
    assert len(billing.pdf) < 20_000  # the breach's size: a small file
    model = model_server(_reading_script(LINKS[how]))
    started = time.monotonic()
    result, events = run_goal(db_path, model, billing.url, "read my latest invoice",
                              "--schema", f"invoice={_schema_file(tmp_path)}")
    assert time.monotonic() - started < 60, "the run was held by the document"
    ended = _ended_extract(events)
    assert ended["type"] == "ACT_FAIL" and ended["error"] == "DocumentUnread", ended
    assert "invoice.pdf: its page 1 draws 3.9 MB" in ended["message"], ended["message"]
    assert not [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert result.returncode != 0


def test_a_pdf_that_keeps_the_reader_busy_is_cut_at_the_deadline(
        billing: Billing, model_server, db_path: Path, tmp_path: Path) -> None:
    from goalbot.agents.documents import DOCUMENT_DEADLINE_S

    billing.pdf = nested_forms_pdf()
    result, events = run_goal(db_path, model_server(_reading_script(LINKS["download"])), billing.url,
                              "read my latest invoice", "--schema", f"invoice={_schema_file(tmp_path)}")
    ended = _ended_extract(events)
    assert ended["type"] == "ACT_FAIL" and ended["error"] == "DocumentUnread", ended
    assert f"reading it took longer than {DOCUMENT_DEADLINE_S:g} s (0 of its 24 pages read)" in ended["message"]
    assert _seconds_between(db_path, "ACT_START", "ACT_FAIL", "extract") < DOCUMENT_DEADLINE_S + 15
    assert result.returncode != 0


def _seconds_between(db_path: Path, first: str, then: str, action: str) -> float:
    from datetime import datetime

    moments = [datetime.fromisoformat(r["ts"]) for r in rows(db_path, "select type, ts, data from events order by seq")
               if r["type"] in (first, then) and json.loads(r["data"]).get("action", {}).get("name") == action]
    return (moments[-1] - moments[0]).total_seconds()


def test_a_signal_while_a_pdf_is_read_ends_the_process_and_stores_it_cancelled(
        billing: Billing, model_server, db_path: Path, tmp_path: Path) -> None:
    billing.pdf = nested_forms_pdf()
    model = model_server(_reading_script(LINKS["download"]))
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "read my latest invoice", "--url", billing.url,
         "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted",
         "--schema", f"invoice={_schema_file(tmp_path)}"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: [e for e in _events(db_path) if e["type"] == "ACT_START"
                            and e["action"]["name"] == "extract"], 90, "the extract starting")
        run.send_signal(signal.SIGTERM)
        # The read alone would take minutes; well inside the deadline means the signal ended it.
        _out, errors = run.communicate(timeout=20)
    finally:
        run.kill()
    assert "Traceback" not in errors
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"
    assert not [e for e in _events(db_path) if e["type"] == "EXTRACTED" and e["valid"]]


# -- the market site (hardsite/market.py), written by someone else ---------------------------------

MARKET_LINKS = {"inline": "View invoice", "new-tab": "Open in a new tab", "download": "Download PDF"}


@pytest.mark.parametrize("how", list(MARKET_LINKS))
def test_the_market_invoice_reruns_on_another_day_exactly_with_no_model(
        how: str, chromium: None, market_site, model_server, db_path: Path, tmp_path: Path) -> None:
    market = market_site.market
    model = model_server(_reading_script(MARKET_LINKS[how], market.truth("invoice")))
    result, _ = run_goal(db_path, model, market_site.page("/billing"), "read my latest invoice",
                         "--schema", f"invoice={_schema_file(tmp_path)}", "--save-recipe", "invoice")
    assert result.returncode == 0, result.stderr
    assert set(market.invoices_served) == {"attachment" if how == "download" else "inline"}  # shown, not saved

    market.day = 2
    rerun = run_cli("--db", str(db_path), "rerun", "invoice", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT,
                    "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = _events(db_path, json.loads(rerun.stdout)["session"])
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "document" and read["data"] == market.truth("invoice", day=2), read


def test_a_new_tab_opens_and_one_to_another_site_is_still_refused(
        billing: Billing, hardsite, model_server, db_path: Path) -> None:
    # A new tab's first request comes before its frame exists: it was held for good (the invoice
    # in a new tab never opened); it is let through when allowed, and refused when not.
    hardsite.reset()
    billing.partner = f"{hardsite.other}/steal.html"
    script = {"planner": [plan("See the partner offer")] * 2,
              "navigator": [answer(call("click", index=element("Open the partner offer"))), finished(False, "no")] * 2}
    result, events = run_goal(db_path, model_server(script), billing.url.replace("/billing", "/partner"),
                              "see the offer", "--allow-domain", billing.url.split("/")[2], "--allow-risky")
    assert hardsite.reached("/steal.html", which=1) == []
    blocked = next(e for e in events if e["type"] == "ACT_FAIL")
    assert blocked["error"] == "NavigationFailed" and "steal.html is outside the allowed domains" in blocked["message"]
    assert all(o["url"].startswith((billing.url.rsplit("/", 1)[0], "about:blank"))
               for o in events if o["type"] == "OBSERVATION")
    assert result.returncode != 0


def test_a_new_tab_that_redirects_to_another_site_is_stopped_before_it_goes_there(
        billing: Billing, hardsite, model_server, db_path: Path) -> None:
    # The new tab's first request is to an allowed site, which answers with a redirect elsewhere:
    # that hop is stopped in Chromium, before any request reaches the other site.
    hardsite.reset()
    billing.partner = f"{hardsite.url}/bounce?to={hardsite.other}/steal.html"
    script = {"planner": [plan("See the partner offer")] * 2,
              "navigator": [answer(call("click", index=element("Open the partner offer"))), finished(False, "no")] * 2}
    result, events = run_goal(db_path, model_server(script), billing.url.replace("/billing", "/partner"),
                              "see the offer", "--allow-domain", billing.url.split("/")[2],
                              "--allow-domain", hardsite.url.split("/")[2], "--allow-risky")
    assert hardsite.reached("/bounce", which=0), "the new tab never asked the allowed site"
    assert hardsite.reached("/steal.html", which=1) == []
    assert result.returncode != 0


def test_a_pdf_shown_that_is_too_big_is_not_fetched_whole(
        billing: Billing, model_server, db_path: Path, tmp_path: Path) -> None:
    billing.pdf = b"%PDF-1.4\n" + b"%" * 21_000_000
    result, events = run_goal(db_path, model_server(_reading_script(LINKS["inline"])), billing.url,
                              "read my latest invoice", "--schema", f"invoice={_schema_file(tmp_path)}")
    ended = _ended_extract(events)
    assert ended["type"] == "ACT_FAIL" and ended["error"] == "DocumentUnread", ended
    assert "it is 21 MB, more than the 20 MB a document read may be" in ended["message"], ended["message"]
    assert result.returncode != 0

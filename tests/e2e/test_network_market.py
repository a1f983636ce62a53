"""The network rung on a market-data site written by someone else (hardsite/market.py): a chart of
12 quotes drawn on a canvas from a fetch that carries a cookie (a layout cookie on every answer;
a session cookie once signed in). Recorded once with the extractor, the reading reruns on another
day's data with no model and exactly the served values; after a redesign of the page, still no
model; after the API is reshaped, one extractor call heals it, then none again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.market import EMAIL, PASSWORD
from hardsite.market_fixture import MarketSite, market_site  # noqa: F401  (a fixture)

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
SCHEMA = {"type": "object", "required": ["quotes"], "additionalProperties": False, "properties": {
    "quotes": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["ticker", "price", "change", "volume"], "additionalProperties": False,
        "properties": {"ticker": {"type": "string"}, "price": {"type": "number"}, "change": {"type": "number"},
                       "volume": {"type": "integer"}}}}}}
GOAL = "read today's quotes: ticker, price, change in percent and volume"


def _schema(tmp_path: Path) -> Path:
    path = tmp_path / "quotes.schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def _read_only_script(quotes: list[dict[str, Any]]) -> dict[str, Any]:
    """The chart is pixels: the extractor answers with what it shows (as a vision model would)."""
    return {"planner": [plan("Read the quotes chart")],
            "navigator": [finished(summary="the chart shows today's quotes")],
            "validator": [verdict(True, "read"), verdict(True, "read")],
            "extractor": [answer(call("extracted", data={"quotes": quotes}))]}


def _rerun(db_path: Path, name: str, base_url: str = DEAD_ENDPOINT, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", name, "--no-tui", "--yes", "--base-url", base_url,
                     "--model", "scripted", "--json", *flags)
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]
    return result, events


def _model_calls(events: list[dict[str, Any]]) -> list[str]:
    return [e.get("role", "?") for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]


def _read_with_no_model(db_path: Path, name: str, market_site: MarketSite, *flags: str) -> None:
    result, events = _rerun(db_path, name, DEAD_ENDPOINT, *flags)
    assert result.returncode == 0, result.stderr
    assert _model_calls(events) == []
    assert json.loads(result.stdout)["result"] == {"quotes": market_site.market.truth("quotes")}, result.stdout
    assert [e["read_by"] for e in events if e["type"] == "EXTRACTED"] == ["network"]


def test_quotes_drawn_from_a_fetch_with_a_cookie_rerun_exactly_with_no_model_and_heal_a_reshaped_api(
        market_site: MarketSite, model_server, db_path: Path, tmp_path: Path) -> None:
    market = market_site.market
    model = model_server(_read_only_script(market.truth("quotes")))
    recorded, events = run_goal(db_path, model, market_site.page("/quotes"), GOAL,
                                "--output-schema", str(_schema(tmp_path)), "--save-recipe", "quotes")
    assert recorded.returncode == 0, recorded.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["network"] is not None and read["network"]["path"] == "/api/quotes", read
    asked = [cookie for method, target, cookie in market.requests if target.startswith("/api/quotes")]
    assert asked and all("layout=wide" in cookie for cookie in asked)  # the fetch carried a cookie

    market.reset(day=2)  # another day's numbers
    _read_with_no_model(db_path, "quotes", market_site)
    market.reset(day=3)
    market.vary(redesign=True)  # other markup, another chart, the same JSON
    _read_with_no_model(db_path, "quotes", market_site)

    market.reset(day=4)
    market.vary(reshaped=True)  # the same numbers under other names: the place no longer reads
    healer = model_server({"extractor": [answer(call("extracted", data={"quotes": market.truth("quotes")}))]})
    result, events = _rerun(db_path, "quotes", healer.base_url)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"] == {"quotes": market.truth("quotes")}
    assert [r["role"] for r in healer.requests] == ["extractor"]
    market.reset(day=5)
    market.vary(reshaped=True)
    _read_with_no_model(db_path, "quotes", market_site)


def test_a_signed_in_pages_quotes_rerun_with_no_model_and_its_session_is_stored_nowhere(
        market_site: MarketSite, model_server, db_path: Path, tmp_path: Path) -> None:
    market = market_site.market
    market.vary(signed_in=True)
    model = model_server({
        "planner": [plan("Sign in", "Read the quotes chart")],
        "navigator": [answer(call("type", index=element("Email"), text=EMAIL)),
                      answer(call("type", index=element("Password"), text="<secret:PW>")),
                      answer(call("click", index=element("Sign in"))),
                      finished(summary="signed in"),
                      finished(summary="the chart shows today's quotes")],
        "validator": [verdict(True, "signed in"), verdict(True, "read"), verdict(True, "read")],
        "extractor": [answer(call("extracted", data={"quotes": market.truth("quotes")}))]})
    recorded, events = run_goal(db_path, model, market_site.page("/quotes"), GOAL, "--secret", f"PW={PASSWORD}",
                                "--output-schema", str(_schema(tmp_path)), "--save-recipe", "signed-in")
    assert recorded.returncode == 0, recorded.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["network"] is not None and read["network"]["path"] == "/api/quotes", read

    sessions = set(market.sessions)  # the session cookies each sign-in mints
    market.reset(day=6)
    market.vary(signed_in=True)
    _read_with_no_model(db_path, "signed-in", market_site, "--secret", f"PW={PASSWORD}")
    sessions |= market.sessions
    assert len(sessions) == 2
    stored = b"".join(p.read_bytes() for p in db_path.parent.glob(f"{db_path.name}*"))
    shown = run_cli("--db", str(db_path), "tail", "--json", "-n", "100000").stdout.encode()
    for secret in [*sessions, PASSWORD]:
        assert secret.encode() not in stored and secret.encode() not in shown

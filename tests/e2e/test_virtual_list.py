"""A list that draws only the rows on screen, with no JSON to read it from (the page asked for it
with a POST, as a search form does): `extract` scrolls its box through and gathers every row,
checks the count against the total the page says, and a rerun does the same with no model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit import rows, run_cli
from hardsite.server import HardSite
from test_network_rung import DEAD_ENDPOINT, STOCK_SCHEMA, _record, _script, _stock


def _fields(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: item[k] for k in ("sku", "name", "stock")} for item in items]


def test_a_virtualised_grid_is_scrolled_through_and_every_row_read_with_its_count_checked(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    served = _stock(1200, 0)
    hardsite.post_answers["/api/stock-search"] = {"total": 1200, "items": served}
    model = model_server(_script("items", {"items": _fields(served[:40])}))  # the rows on screen
    _, read = _record(db_path, tmp_path, model, hardsite.page("grid") + "?private=1", "items", STOCK_SCHEMA)
    assert read["network"] is None  # the answer to a POST: never kept
    assert read["data"]["items"] == _fields(served), len(read["data"]["items"])

    today = _stock(1200, 5)
    hardsite.post_answers["/api/stock-search"] = {"total": 1200, "items": today}
    rerun = run_cli("--db", str(db_path), "rerun", "items", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--json")
    assert rerun.returncode == 0, rerun.stderr
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", json.loads(rerun.stdout)["session"])]
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "places" and read["data"]["items"] == _fields(today)

    # The page says one more row than its list holds: read short, the rerun stops and says so.
    hardsite.post_answers["/api/stock-search"] = {"total": 1201, "items": today}
    short = run_cli("--db", str(db_path), "rerun", "items", "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT)
    assert short.returncode != 0 and "1200 rows were read, and the page says 1201" in short.stderr, short.stderr

"""What an extraction costs, per extraction and by the rung that read it: model calls, prompt
characters sent, and wall time from the `extract` action's start to its data — in a recorded run
(an answer that fits at once, and one that needs its repair) and in the reruns of the recipe made
from it (the recorded places read with no model, and, after the site's redesign, the extractor's
one re-read); and for a chart drawn on a canvas, read again from the JSON the page fetched. Every figure comes
from the real command line against the test site's seat-picker page and the scripted model, whose
every answer takes `--latency` seconds as a real model's does.

    python bench/extraction.py [--runs 3] [--latency 0.5]

Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import answer, call, element, finished, plan, rows, verdict  # noqa: E402
from seats_kit import FRIDAY, POLICIES, SATURDAY, SEATS_SCHEMA, as_data  # noqa: E402

GOAL = "take the cheapest front-row seat under the limit"
DEAD_ENDPOINT = "http://127.0.0.1:9/v1"


def recording(extracted: list[dict[str, Any]]) -> dict[str, Any]:
    return {"planner": [plan("Read the seats and take the cheapest front-row seat under the limit")],
            "navigator": [answer(call("extract", instruction="every seat with its row, price and whether it is free",
                                      key="seats", schema="seats"),
                                 call("choose", **{"from": "seats"}, policy="cheapest_front", act=True)),
                          finished(summary="picked a seat")],
            "extractor": extracted, "validator": [verdict(True, "a seat was picked")] * 2}


def goalbot(db: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db), *args, "--no-tui", "--yes"],
                          capture_output=True, text=True, cwd=REPO, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr


def measured(db: Path, server: ScriptedModelServer | None) -> dict[str, Any]:
    """The latest session's extraction: the extractor's requests, and the time it took."""
    session = rows(db, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = rows(db, "select type, ts, data from events where session_id = ? order by seq", session)
    start = next(e for e in events if e["type"] == "ACT_START" and '"extract"' in e["data"])
    read = next(e for e in events if e["type"] == "EXTRACTED")
    asked = [r for r in (server.requests if server else []) if r.get("role") == "extractor"]
    took = datetime.fromisoformat(read["ts"]) - datetime.fromisoformat(start["ts"])
    return {"calls": len(asked), "chars": sum(len(json.dumps(r["messages"], ensure_ascii=False)) for r in asked),
            "seconds": took.total_seconds(), "rung": json.loads(read["data"])["read_by"]}


def one_round(site: HardSite, latency: float, repair: bool) -> dict[str, dict[str, Any]]:
    """A recorded run, a rerun on the next day's seats, and a rerun after the site's redesign."""
    figures = {}
    wrong = {"seats": [dict(as_data(FRIDAY)["seats"][0], price="$62.00")]}
    first = [answer(call("extracted", data=wrong))] if repair else []
    with tempfile.TemporaryDirectory() as folder:
        db, schema, policies = (Path(folder) / name for name in ("goalbot.db", "seats.json", "policies.json"))
        schema.write_text(json.dumps(SEATS_SCHEMA))
        policies.write_text(json.dumps(POLICIES))
        site.posted.update(seats=FRIDAY, layout="table")
        script = recording([*first, answer(call("extracted", data=as_data(FRIDAY)))])
        with ScriptedModelServer(Script({**script, "server": {"latency_s": latency}})) as model:
            goalbot(db, "run", GOAL, "--url", site.page("seat-picker"), "--base-url", model.base_url,
                    "--model", "scripted", "--schema", f"seats={schema}", "--policies", str(policies),
                    "--var", "MAX=55", "--save-recipe", "seats")
            figures["recorded run" + (", one repair" if repair else ", fits at once")] = measured(db, model)
        site.posted.update(seats=SATURDAY)
        goalbot(db, "rerun", "seats", "--var", "MAX=55", "--base-url", DEAD_ENDPOINT)
        figures["rerun, recorded places"] = measured(db, None)
        site.posted.update(layout="cards")
        reread = {"extractor": [answer(call("extracted", data=as_data(SATURDAY)))], "server": {"latency_s": latency}}
        with ScriptedModelServer(Script(reread)) as model:
            goalbot(db, "rerun", "seats", "--var", "MAX=55", "--base-url", model.base_url, "--model", "scripted")
            figures["rerun after a redesign (re-read once)"] = measured(db, model)
    return figures


def chart_round(site: HardSite, latency: float) -> dict[str, dict[str, Any]]:
    """A price chart drawn on a canvas from /api/prices: recorded (the model reads it), then rerun
    on the next day's prices and after a redesign that keeps the JSON (read from it, no model)."""
    figures = {}
    series = [{"day": f"2026-11-{n:02d}", "close": 40 + n} for n in range(1, 8)]
    schema_text = {"type": "object", "required": ["prices"], "properties": {"prices": {"type": "array", "items": {
        "type": "object", "required": ["day", "close"],
        "properties": {"day": {"type": "string"}, "close": {"type": "number"}}}}}}
    with tempfile.TemporaryDirectory() as folder:
        db, schema = Path(folder) / "goalbot.db", Path(folder) / "prices.json"
        schema.write_text(json.dumps(schema_text))
        site.variant = ""
        site.posted.update(prices={"series": series})
        script = {"planner": [plan("Read the prices")],
                  "navigator": [answer(call("extract", instruction="every day's closing price", key="prices",
                                            schema="prices")), finished(summary="read")],
                  "extractor": [answer(call("extracted", data={"prices": series}))],
                  "validator": [verdict(True, "read")] * 2, "server": {"latency_s": latency}}
        with ScriptedModelServer(Script(script)) as model:
            goalbot(db, "run", "read the prices", "--url", site.page("chart"), "--base-url", model.base_url,
                    "--model", "scripted", "--schema", f"prices={schema}", "--save-recipe", "prices")
            figures["chart on a canvas, recorded run"] = measured(db, model)
        site.posted.update(prices={"series": [dict(p, close=p["close"] + 3) for p in series]})
        goalbot(db, "rerun", "prices", "--base-url", DEAD_ENDPOINT)
        figures["chart on a canvas, rerun"] = measured(db, None)
        site.variant = "new"
        goalbot(db, "rerun", "prices", "--base-url", DEAD_ENDPOINT)
        figures["chart on a canvas, rerun after a redesign"] = measured(db, None)
        site.variant = ""
    return figures


def pictures_round(site: HardSite, latency: float) -> dict[str, dict[str, Any]]:
    """Figures drawn on a canvas (read by OCR) and a downloaded PDF invoice (read by its text
    layer): each recorded with the model, then rerun on the next figures with no model."""
    figures = {}
    report = {"type": "object", "required": ["revenue", "orders"],
              "properties": {"revenue": {"type": "number"}, "orders": {"type": "integer"}}}
    invoice = {"type": "object", "required": ["number", "total"],
               "properties": {"number": {"type": "string"}, "total": {"type": "number"}}}
    cases = [("report", "drawn-report", report, {"region": "North", "revenue": 48200, "orders": 1312},
              {"revenue": 48200, "orders": 1312}, {"region": "South", "revenue": 51375, "orders": 1498}, None),
             ("invoice", "invoice", invoice, {"number": "A-1042", "date": "2026-11-20", "total": 1234.5},
              {"number": "A-1042", "total": 1234.5}, {"number": "A-1107", "date": "2026-12-20", "total": 87.25},
              "Download invoice")]
    for key, page, schema_text, served, read, next_served, download in cases:
        with tempfile.TemporaryDirectory() as folder:
            db, schema = Path(folder) / "goalbot.db", Path(folder) / f"{key}.json"
            schema.write_text(json.dumps(schema_text))
            site.posted[key] = served
            clicks = [answer(call("click", index=element(download)))] if download else []
            script = {"planner": [plan(f"Read the {key}")],
                      "navigator": [*clicks, answer(call("extract", instruction=f"the {key}'s figures", key=key,
                                                         schema=key)), finished(summary="read")],
                      "extractor": [answer(call("extracted", data=read))],
                      "validator": [verdict(True, "read")] * 2, "server": {"latency_s": latency}}
            with ScriptedModelServer(Script(script)) as model:
                goalbot(db, "run", f"read the {key}", "--url", site.page(page), "--base-url", model.base_url,
                        "--model", "scripted", "--schema", f"{key}={schema}", "--save-recipe", key)
                figures[f"{key} ({'a PDF' if download else 'drawn on a canvas'}), recorded run"] = measured(db, model)
            site.posted[key] = next_served
            goalbot(db, "rerun", key, "--base-url", DEAD_ENDPOINT)
            figures[f"{key} ({'a PDF' if download else 'drawn on a canvas'}), rerun"] = measured(db, None)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    args = parser.parse_args()
    print(f"| extraction (median of {args.runs}, model latency {args.latency:g} s) | read by | calls | prompt chars "
          "| wall time |")
    print("|---|---|---:|---:|---:|")
    with HardSite() as site:
        rounds = [one_round(site, args.latency, repair) for repair in (False, True) for _ in range(args.runs)]
        rounds += [chart_round(site, args.latency) for _ in range(args.runs)]
        rounds += [pictures_round(site, args.latency) for _ in range(args.runs)]
    names = list(dict.fromkeys(name for figures in rounds for name in figures))
    for name in names:
        runs = [figures[name] for figures in rounds if name in figures]
        figure = {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "rung"}
        rung = "/".join(sorted({str(run["rung"]) for run in runs}))
        print(f"| {name} | {rung} | {figure['calls']:.0f} | {figure['chars']:,.0f} | {figure['seconds']:.2f} s |")


if __name__ == "__main__":
    main()

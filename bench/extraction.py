"""What a run's extraction costs (`goalbot run … --output-schema S.json --json`), per extraction:
model calls, prompt characters sent, and wall time from the goal's last verdict to the data, for
an answer that fits at once and for one that needs its repair. The run is the real command
line against the test site's seats page and the scripted model, whose every answer takes
`--latency` seconds as a real model's does.

    python bench/extraction.py [--runs 3] [--latency 0.5]

Prints figures; nothing here asserts. Reruns that read the same places without a model are not
built yet (issue 34), so there is no rerun column.
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
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "e2e")]

from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import answer, call, rows  # noqa: E402
from test_extraction import GOAL, SCHEMA, SEATS, _script  # noqa: E402


def one_run(site: HardSite, script: dict[str, Any], latency: float) -> dict[str, float]:
    server = ScriptedModelServer(Script({**script, "server": {"latency_s": latency}})).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            db, schema = Path(folder) / "goalbot.db", Path(folder) / "schema.json"
            schema.write_text(json.dumps(SCHEMA))
            done = subprocess.run(
                [sys.executable, "-m", "goalbot", "--db", str(db), "run", GOAL, "--url", site.page("seats"), "--no-tui",
                 "--yes", "--base-url", server.base_url, "--model", "scripted", "--output-schema", str(schema),
                 "--json"], capture_output=True, text=True, cwd=REPO, timeout=300)
            assert json.loads(done.stdout)["valid"], done.stderr
            events = rows(db, "select type, ts from events order by seq")
    finally:
        server.stop()
    asked = [r for r in server.requests if any(t["function"]["name"] == "extracted" for t in r.get("tools") or [])]
    verdicts = [e for e in events if e["type"] == "VALIDATE_OK"]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    took = datetime.fromisoformat(read["ts"]) - datetime.fromisoformat(verdicts[-1]["ts"])
    return {"calls": len(asked), "chars": sum(len(json.dumps(r["messages"], ensure_ascii=False)) for r in asked),
            "seconds": took.total_seconds()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    args = parser.parse_args()
    wrong = {"seats": [dict(SEATS["seats"][0], price="$62.00")]}
    cases = {"fits at once": _script(answer(call("extracted", data=SEATS))),
             "one repair": _script(answer(call("extracted", data=wrong)), answer(call("extracted", data=SEATS)))}
    print(f"| extraction (median of {args.runs}, model latency {args.latency:g} s) | calls | prompt chars | wall time |")
    print("|---|---:|---:|---:|")
    with HardSite() as site:
        for name, script in cases.items():
            runs = [one_run(site, script, args.latency) for _ in range(args.runs)]
            figure = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            print(f"| {name} | {figure['calls']:.0f} | {figure['chars']:,.0f} | {figure['seconds']:.2f} s |")


if __name__ == "__main__":
    main()

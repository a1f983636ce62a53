"""One goal driven through `goalbot mcp` (on stdio, as a host starts it) against the same goal run
by `goalbot run --no-tui --yes`: wall time of each, the time the server adds, and the characters
each MCP call returns to the host — what fills a host model's context (playwright-mcp's users'
most common complaint is a whole page snapshot in every answer).

    python bench/mcp_host.py [--runs 3] [--latency 0.2]

The goal reads the test site's seat table into a JSON Schema with the scripted model, whose every
answer takes `--latency` seconds. Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from mcp import Client, StdioServerParameters  # noqa: E402

from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import answer, call, finished, plan, rows, verdict  # noqa: E402
from seats_kit import FRIDAY, SEATS_SCHEMA, as_data  # noqa: E402

GOAL = "list the seats with their rows, prices and whether they are free"


def script(latency: float) -> dict[str, Any]:
    return {"planner": [plan("Read the seats")], "navigator": [finished(True, "read")],
            "validator": [verdict(True, "read")] * 2, "extractor": [answer(call("extracted", data=as_data(FRIDAY)))],
            "server": {"latency_s": latency}}


def session_seconds(db: Path) -> float:
    """How long the stored session itself took, from its first event to its last."""
    row = rows(db, "select min(ts) as first, max(ts) as last from events")[0]
    return (datetime.fromisoformat(row["last"]) - datetime.fromisoformat(row["first"])).total_seconds()


def by_run(site: HardSite, latency: float, folder: Path) -> float:
    schema = folder / "seats.json"
    schema.write_text(json.dumps(SEATS_SCHEMA))
    with ScriptedModelServer(Script(script(latency))) as model:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "goalbot", "--db", str(folder / "run.db"), "run", GOAL, "--url",
                        site.page("seat-picker"), "--no-tui", "--yes", "--base-url", model.base_url, "--model",
                        "scripted", "--output-schema", str(schema), "--json"],
                       check=True, capture_output=True, cwd=REPO, timeout=300, stdin=subprocess.DEVNULL)
        return time.perf_counter() - started


async def by_mcp(site: HardSite, latency: float, folder: Path) -> tuple[float, float, dict[str, int]]:
    """Wall time from starting the server to the goal's end, the call's own time, and the
    characters each tool answered."""
    sizes: dict[str, int] = {}

    def size(result: Any) -> int:
        return len(json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True)))

    with ScriptedModelServer(Script(script(latency))) as model:
        server = StdioServerParameters(command=sys.executable, cwd=str(REPO), env=dict(os.environ), args=[
            "-m", "goalbot", "--db", str(folder / "mcp.db"), "mcp", "--base-url", model.base_url, "--model", "scripted",
            "--approve-plans"])
        started = time.perf_counter()
        async with Client(server) as client:
            sizes["list_tools"] = size(await client.list_tools())
            call_started = time.perf_counter()
            done = await client.call_tool("run_goal", {"goal": GOAL, "url": site.page("seat-picker"),
                                                       "output_schema": SEATS_SCHEMA, "wait": True})
            call_took = time.perf_counter() - call_started
            sizes["run_goal (wait)"] = size(done)
            run_id = done.structured_content["run_id"]
            sizes["get_run"] = size(await client.call_tool("get_run", {"run_id": run_id}))
            sizes["list_runs"] = size(await client.call_tool("list_runs", {"limit": 10}))
            sizes["get_report"] = size(await client.call_tool("get_report", {"run_id": run_id}))
            sizes["observe"] = size(await client.call_tool("observe", {"url": site.page("seat-picker")}))
        return time.perf_counter() - started, call_took, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    runs, run_sessions, servers, calls, mcp_sessions, sizes = [], [], [], [], [], []
    with HardSite() as site:
        site.posted["seats"] = FRIDAY
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as folder:
                runs.append(by_run(site, args.latency, Path(folder)))
                run_sessions.append(session_seconds(Path(folder) / "run.db"))
                whole, call_took, answered = asyncio.run(by_mcp(site, args.latency, Path(folder)))
                servers.append(whole)
                calls.append(call_took)
                mcp_sessions.append(session_seconds(Path(folder) / "mcp.db"))
                sizes.append(answered)
    run, run_session, server, call_time, mcp_session = (
        statistics.median(x) for x in (runs, run_sessions, servers, calls, mcp_sessions))
    print(f"one goal, median of {args.runs} (model latency {args.latency:g} s), on this machine:\n")
    print("| | wall time | of which the session (first to last event) |")
    print("|---|---:|---:|")
    print(f"| `goalbot run --no-tui --yes`, a process from start to exit | {run:.2f} s | {run_session:.2f} s |")
    print(f"| `goalbot mcp` on stdio: start, run_goal with wait, 5 more calls, stop | {server:.2f} s | |")
    print(f"| the run_goal call (wait) | {call_time:.2f} s | {mcp_session:.2f} s |")
    print(f"| what the server adds around the session (call − session) | {call_time - mcp_session:.2f} s | |\n")
    print("| call | characters returned to the host |")
    print("|---|---:|")
    for name in sizes[0]:
        print(f"| {name} | {statistics.median(s[name] for s in sizes):,.0f} |")


if __name__ == "__main__":
    main()

"""Figures for the walking skeleton: how long the demo goal takes end to end, how long an
observation takes, and how many events a second the store absorbs.

    python bench/run_loop.py [--runs 5]

Prints medians; nothing here asserts, these machines are too noisy for that.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goalbot.agents.control import SessionControl  # noqa: E402
from goalbot.agents.session import RunOptions, Session, Status  # noqa: E402
from goalbot.demo.site import DemoSite  # noqa: E402
from goalbot.events import Actor, Bus, Emitter, EventType  # noqa: E402
from goalbot.llm.client import ModelConfig, ModelSetup  # noqa: E402
from goalbot.operators.browser.operator import BrowserOperator  # noqa: E402
from goalbot.operators.browser.options import BrowserOptions  # noqa: E402
from goalbot.agents.policies import SafetyPolicy  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from storage.recorder import Recorder  # noqa: E402


async def one_run(db: Path, policy: SafetyPolicy) -> tuple[float, list[int]]:
    script = json.loads(files("goalbot.demo").joinpath("script.json").read_text())
    recorder = Recorder(db)
    bus = Bus()
    recorder.attach(bus)
    latencies: list[int] = []
    bus.subscribe(lambda e: latencies.append(e.payload.latency_ms) if e.type is EventType.LLM_CALL else None)
    with DemoSite() as site, ScriptedModelServer(Script(script)) as model:
        session = Session(
            RunOptions(goal="sign in and turn on dark mode", url=f"{site.url}/login", policy=policy),
            BrowserOperator(BrowserOptions(headless=True)),
            ModelSetup(ModelConfig(base_url=model.base_url, model="scripted")), bus, SessionControl(auto_approve=True),
        )
        started = time.perf_counter()
        result = await session.run()
        elapsed = time.perf_counter() - started
    recorder.close()
    if result.status is not Status.OK:
        raise SystemExit(f"the demo run did not succeed: {result.reason}")
    return elapsed, latencies


async def observation_times(runs: int) -> list[float]:
    with DemoSite() as site:
        operator = BrowserOperator(BrowserOptions(headless=True))
        await operator.start(f"{site.url}/login")
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            await operator.observe(screenshot=True)
            times.append(time.perf_counter() - started)
        await operator.close()
    return times


def store_throughput(db: Path, count: int) -> float:
    recorder = Recorder(db)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "bench")
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, goal="bench", model="m", base_url="u", max_steps=1)
    started = time.perf_counter()
    for i in range(count):
        emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, 1, action={"name": "click", "index": i}, message="ok")
    recorder.close()
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        results = [asyncio.run(one_run(db, SafetyPolicy())) for _ in range(args.runs)]
        # The same run with no interval between actions: what the guards themselves cost.
        unpaced = [asyncio.run(one_run(db, SafetyPolicy(min_interval_s=0)))[0] for _ in range(args.runs)]
        observe = asyncio.run(observation_times(20))
        throughput = store_throughput(Path(tmp) / "events.db", 10_000)
    totals = [r[0] for r in results]
    calls = [ms for r in results for ms in r[1]]
    print(f"demo goal, end to end (browser start to TASK_OK), {args.runs} runs: "
          f"median {statistics.median(totals):.2f} s, min {min(totals):.2f} s, max {max(totals):.2f} s "
          f"(--min-interval 0.5, the default); with --min-interval 0: median {statistics.median(unpaced):.2f} s")
    print(f"model round trip to the scripted server: median {statistics.median(calls)} ms "
          f"over {len(calls)} calls")
    print(f"observation of the sign-in page incl. JPEG screenshot: median "
          f"{statistics.median(observe) * 1000:.0f} ms over {len(observe)}")
    print(f"store: {throughput:,.0f} events/s written (10,000 events, WAL, one writer thread)")


if __name__ == "__main__":
    main()

"""Figures for the dashboard: how many events a second it absorbs, what a long session costs in
memory, and whether it slows the agent down.

    python bench/dashboard.py [--runs 3]

- absorbed: a thread publishes events (a realistic mix) through the bus, as fast as it can and at
  1,000 a second; the figure is events drawn per second of wall time, and how far behind the
  board was when the last one was published.
- memory: the app's Python heap (tracemalloc) after 1,000, 10,000 and 50,000 events: the log is
  virtualised, so it should grow by its text only.
- step latency: the demo's steps (STEP_START to STEP_OK) with no dashboard and with the dashboard
  drawing every event, on real Chromium and the scripted model, --min-interval 0.

Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from importlib.resources import files
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goalbot.agents.control import SessionControl  # noqa: E402
from goalbot.agents.policies import SafetyPolicy  # noqa: E402
from goalbot.agents.session import RunOptions, Session  # noqa: E402
from goalbot.demo.site import DemoSite  # noqa: E402
from goalbot.events import Actor, Bus, Emitter, Event, EventType as T, new_session_id  # noqa: E402
from goalbot.llm.client import ModelConfig, ModelSetup  # noqa: E402
from goalbot.operators.browser.operator import BrowserOperator  # noqa: E402
from goalbot.operators.browser.options import BrowserOptions  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from tui.app import GoalbotApp  # noqa: E402
from tui.images import prepare_images  # noqa: E402
from tui.screens.run import LiveRun  # noqa: E402
from tui.sources import BusSource  # noqa: E402
from tui.widgets.steplog import StepLog  # noqa: E402


def publish(emitter: Emitter, count: int, per_second: float | None) -> None:
    """A step's worth of events over and over: start, actions, model calls, verdicts, progress."""
    started = time.perf_counter()
    for n in range(count):
        step = n // 8 + 1
        match n % 8:
            case 0:
                emitter.emit(T.STEP_START, Actor.NAVIGATOR, step, index=step, description="fill the form")
            case 1 | 2:
                emitter.emit(T.LLM_CALL, Actor.NAVIGATOR, step, role="navigator", model="bench", latency_ms=5,
                             tokens_in=900, tokens_out=40)
            case 3 | 4:
                emitter.emit(T.ACT_OK, Actor.NAVIGATOR, step, action={"name": "click", "index": n % 40},
                             message=f"clicked [{n % 40}] button 'Save'")
            case 5:
                emitter.emit(T.VALIDATE_OK, Actor.VALIDATOR, step, is_valid=True, reason="saved", confidence=0.8)
            case 6:
                emitter.emit(T.GOAL_STATUS, Actor.VALIDATOR, step, achieved=False, progress_percent=n % 100,
                             confidence=(n % 10) / 10)
            case 7:
                emitter.emit(T.STEP_OK, Actor.NAVIGATOR, step, index=step, description="fill the form", reason="ok")
        if per_second:
            lag = (n + 1) / per_second - (time.perf_counter() - started)
            if lag > 0:
                time.sleep(lag)


async def absorb(count: int, per_second: float | None) -> tuple[float, float, int]:
    """(events drawn per second, seconds the board trailed the last publish, heap bytes)."""
    bus = Bus()
    emitter = Emitter(bus, new_session_id())
    app = GoalbotApp()
    async with app.run_test(size=(160, 45)) as pilot:
        app.run_screen.follow(BusSource(bus), None)
        log = app.run_screen.query_one("#log", StepLog)
        wanted = sum(1 for n in range(count) if n % 8 not in (1, 2, 6))  # the log keeps no LLM_CALL, GOAL_STATUS
        tracemalloc.start()
        started = time.perf_counter()
        failed: list[BaseException] = []

        def publisher_body() -> None:
            try:
                publish(emitter, count, per_second)
            except BaseException as exc:  # the bench must say so, not wait forever
                failed.append(exc)

        publisher = threading.Thread(target=publisher_body)
        publisher.start()
        while publisher.is_alive():
            await pilot.pause(0.02)
        if failed:
            raise SystemExit(f"publishing failed: {failed[0]}")
        published = time.perf_counter()
        while log.line_count < wanted:
            await pilot.pause(0.01)
        drawn = time.perf_counter()
        heap, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        await pilot.pause(0.1)
    return count / (drawn - started), drawn - published, heap


async def demo_steps(with_dashboard: bool) -> list[float]:
    script = json.loads(files("goalbot.demo").joinpath("script.json").read_text())
    bus = Bus()
    steps: dict[int, float] = {}
    durations: list[float] = []

    def time_steps(event: Event) -> None:
        if event.type is T.STEP_START:
            steps[event.step or 0] = time.perf_counter()
        elif event.type in (T.STEP_OK, T.STEP_FAIL):
            durations.append(time.perf_counter() - steps[event.step or 0])

    bus.subscribe(time_steps)
    with DemoSite() as site, ScriptedModelServer(Script(script)) as model:
        control = SessionControl(auto_approve=True)
        session = Session(RunOptions(goal="sign in and turn on dark mode", url=f"{site.url}/login",
                                     policy=SafetyPolicy(min_interval_s=0)),
                          BrowserOperator(BrowserOptions(headless=True)),
                          ModelSetup(ModelConfig(base_url=model.base_url, model="scripted")), bus, control)
        if with_dashboard:
            app = GoalbotApp(live=LiveRun(bus, session, control))
            async with app.run_test(size=(160, 45)) as pilot:
                while app.result is None:
                    await pilot.pause(0.05)
        else:
            await session.run()
    return durations


async def main(runs: int) -> None:
    prepare_images("halfcell")
    for label, per_second in (("burst (as fast as published)", None), ("1,000 events/s", 1000.0)):
        rates, trails = [], []
        for _ in range(runs):
            rate, trail, _ = await absorb(10_000, per_second)
            rates.append(rate)
            trails.append(trail)
        print(f"absorbed, {label}: {statistics.median(rates):,.0f} events/s drawn; "
              f"the board trailed the last event by {statistics.median(trails) * 1000:.0f} ms (median of {runs})")
    for count in (1_000, 10_000, 50_000):
        _, _, heap = await absorb(count, None)
        print(f"memory after {count:,} events: {heap / 1e6:.1f} MB of Python heap in the app")
    for with_dashboard in (False, True):
        durations: list[float] = []
        for _ in range(runs):
            durations += await demo_steps(with_dashboard)
        label = "with the dashboard" if with_dashboard else "without a dashboard"
        print(f"demo step latency {label}: median {statistics.median(durations) * 1000:.0f} ms "
              f"over {len(durations)} steps")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    with tempfile.TemporaryDirectory():
        asyncio.run(main(parser.parse_args().runs))

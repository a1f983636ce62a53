"""Record once, rerun for free: how long a recipe's rerun takes next to the same flow written by
hand in Playwright (the physical limit), and next to the run that recorded it.

    python bench/rerun.py [--runs 3] [--latency 1.5]

The flow is the test site's sign-in and dark mode (tests/hardsite/pages/darkmode.html): five
actions. The recording run asks the scripted model, whose every answer takes `--latency` seconds
as a real model's does. Each figure is a median over `--runs`, from the browser's start to the
flow's end, in this process; the rerun is timed with the default --min-interval (0.5 s between
actions, seed 000 §4) and with none. Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from playwright.async_api import async_playwright  # noqa: E402

from goalbot.agents.control import SessionControl  # noqa: E402
from goalbot.agents.policies import SafetyPolicy  # noqa: E402
from goalbot.agents.secrets import Secrets  # noqa: E402
from goalbot.agents.session import RunOptions, Session  # noqa: E402
from goalbot.events import Bus  # noqa: E402
from goalbot.llm.client import ModelConfig, ModelSetup  # noqa: E402
from goalbot.operators.browser import BrowserOperator  # noqa: E402
from goalbot.operators.browser_launch import BrowserOptions  # noqa: E402
from goalbot.operators.browser_locate import LAUNCH_ARGS, find_browser  # noqa: E402
from goalbot.recipes.build import build  # noqa: E402
from goalbot.recipes.runner import RecipeRun, Rerun  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import darkmode_script  # noqa: E402
from storage import queries  # noqa: E402
from storage.recorder import Recorder  # noqa: E402

GOAL = "sign in and turn on dark mode"


def script(latency: float) -> dict[str, object]:
    return {"server": {"latency_s": latency}, **darkmode_script()}


async def record(db: Path, url: str, latency: float) -> tuple[float, str, int]:
    recorder, bus = Recorder(db), Bus()
    recorder.attach(bus)
    with ScriptedModelServer(Script(script(latency))) as model:
        session = Session(RunOptions(goal=GOAL, url=url), BrowserOperator(BrowserOptions(headless=True)),
                          ModelSetup(ModelConfig(base_url=model.base_url, model="scripted")), bus,
                          SessionControl(auto_approve=True), Secrets({"PW": "hunter2"}))
        started = time.perf_counter()
        await session.run()
        elapsed = time.perf_counter() - started
        calls = len(model.requests)
    recorder.close()
    return elapsed, session.session_id, calls


async def rerun(db: Path, session_id: str, url: str, min_interval: float) -> float:
    recorder = Recorder(db)
    recipe = build("darkmode", queries.session_events(recorder.db, session_id), {})
    bus = Bus()
    recorder.attach(bus)
    # As `goalbot rerun --no-tui` runs it: nobody watches live, so pictures are paced.
    options = RunOptions(goal=GOAL, url=url, policy=SafetyPolicy(min_interval_s=min_interval), pictures="paced")
    run = RecipeRun(Rerun(recipe=recipe), options, BrowserOperator(BrowserOptions(headless=True)), bus,
                    SessionControl(auto_approve=True), Secrets({"PW": "hunter2"}))
    started = time.perf_counter()
    result = await run.run()
    elapsed = time.perf_counter() - started
    recorder.close()
    assert result.status.value == "ok", result.reason
    return elapsed


async def by_hand(url: str) -> float:
    """The same five actions in plain Playwright: no observation, no checks, no events."""
    started = time.perf_counter()
    async with async_playwright() as p:
        browser = await p.chromium.launch(headless=True, executable_path=find_browser().path, args=LAUNCH_ARGS)
        page = await browser.new_page()
        await page.goto(url)
        await page.fill("#user", "alice")
        await page.fill("#pw", "hunter2")
        await page.click("#signin")
        await page.click("#dark")
        await page.click("#save")
        await page.get_by_text("Saved").wait_for()
        await browser.close()
    return time.perf_counter() - started


async def main(runs: int, latency: float) -> None:
    with HardSite() as site, tempfile.TemporaryDirectory() as tmp:
        url = site.page("darkmode")
        db = Path(tmp) / "bench.db"
        recorded = [await record(db, url, latency) for _ in range(runs)]
        session_id, calls = recorded[-1][1], recorded[-1][2]
        figures = {
            f"recording run (model answers in {latency:g} s, {calls} calls)": [r[0] for r in recorded],
            "rerun, --min-interval 0.5 (default)": [await rerun(db, session_id, url, 0.5) for _ in range(runs)],
            "rerun, --min-interval 0": [await rerun(db, session_id, url, 0.0) for _ in range(runs)],
            "hand-written Playwright": [await by_hand(url) for _ in range(runs)],
        }
    medians = {name: statistics.median(times) for name, times in figures.items()}
    hand = medians["hand-written Playwright"]
    for name, seconds in medians.items():
        print(f"{name:<52} {seconds:6.2f} s  {seconds / hand:5.2f}× by hand")
    recording = next(iter(medians.values()))
    for name in ("rerun, --min-interval 0.5 (default)", "rerun, --min-interval 0"):
        print(f"{name}: {recording / medians[name]:.1f}× faster than the recording run")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=1.5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.latency))

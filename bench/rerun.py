"""Record once, rerun for free: how long a recipe's rerun takes next to the same flow written by
hand in Playwright (the physical limit), and next to the run that recorded it.

    python bench/rerun.py [--runs 3] [--latency 1.5] [--slo-runs 5]

The flow is the test site's sign-in and dark mode (tests/hardsite/pages/darkmode.html): five
actions. The recording run asks the scripted model, whose every answer takes `--latency` seconds
as a real model's does. Each figure is a median over `--runs`, from the browser's start to the
flow's end, in this process; the rerun is timed with the default --min-interval (0.5 s between
actions, seed 000 §4) and with none.

Then seed 002's SLOs, over `--slo-runs` reruns on each of three sites: unchanged, restyled and
reworded (healed from evidence), and with the settings moved behind a menu (which evidence cannot
carry: a scripted patcher answers with the patch, and the patched recipe is kept, as `goalbot
rerun` keeps it). Model calls per normal rerun (every rerun but the first on a changed site;
target ≤ 0.2), success from the second run on (≥ 95%), recovery within one patch (≥ 80%).
Prints figures; nothing here asserts.
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
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "bench")]

from goalbot.agents.control import SessionControl  # noqa: E402
from goalbot.agents.policies import SafetyPolicy  # noqa: E402
from goalbot.agents.secrets import Secrets  # noqa: E402
from goalbot.agents.session import RunOptions, Session  # noqa: E402
from goalbot.events import Bus  # noqa: E402
from goalbot.llm.client import ModelConfig, ModelSetup  # noqa: E402
from goalbot.operators.browser.operator import BrowserOperator  # noqa: E402
from goalbot.operators.browser.options import BrowserOptions  # noqa: E402
from goalbot.recipes.build import build  # noqa: E402
from goalbot.recipes.runner import RecipeRun, Rerun  # noqa: E402
from storage import recipes  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from batch_by_hand import darkmode_by_hand  # noqa: E402
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


MENU_PATCH = {"server": {"repeat": True}, "patcher": [{"tool_calls": [{"name": "patch", "arguments": {
    "reason": "the settings are behind a menu now",
    "ops": [{"op": "insert_actions", "before_step": 4, "actions": [{"name": "click", "index": {"$element": "Menu"}}]}],
}}]}]}
SITES = {"unchanged": "", "restyled and reworded": "?variant=cosmetic", "settings behind a menu": "?variant=menu"}


async def rerun_as_goalbot_does(db: Path, url: str, patcher: ScriptedModelServer) -> tuple[bool, int]:
    """One rerun of the latest version with its healing memory, a patcher at hand, and what it
    heals or patches kept, as `goalbot rerun` keeps it; whether it ended well, and its model calls."""
    recorder = Recorder(db)
    recipe = recipes.load(recorder.db, "darkmode")
    assert recipe is not None
    bus = Bus()
    recorder.attach(bus)
    asked = len(patcher.requests)
    run = RecipeRun(Rerun(recipe=recipe, healed=recipes.heals_of(recorder.db, recipe)),
                    RunOptions(goal=GOAL, url=url, policy=SafetyPolicy(min_interval_s=0), pictures="paced"),
                    BrowserOperator(BrowserOptions(headless=True)), bus, SessionControl(auto_approve=True),
                    Secrets({"PW": "hunter2"}), model=ModelSetup(ModelConfig(base_url=patcher.base_url, model="scripted")))
    ok = (await run.run()).status.value == "ok"
    if ok and run.heals:
        recipes.remember_heals(recorder.db, run.recipe, run.heals, run.session_id)
    if ok and run.patches:
        recipes.save(recorder.db, run.recipe.model_copy(update={"source_session": run.session_id}))
    recorder.close()
    return ok, len(patcher.requests) - asked


async def slos(site: HardSite, runs: int, latency: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(Script(MENU_PATCH)) as patcher:
        db = Path(tmp) / "slo.db"
        _, session_id, _ = await record(db, site.page("darkmode"), latency)
        recorder = Recorder(db)
        recipes.save(recorder.db, build("darkmode", queries.session_events(recorder.db, session_id), {}))
        recorder.close()
        normal_calls, later_ok, patched, recovered = [], [], 0, 0
        for name, variant in SITES.items():
            results = [await rerun_as_goalbot_does(db, site.page("darkmode") + variant, patcher) for _ in range(runs)]
            print(f"  {name:<24} " + " ".join(f"{'ok' if ok else 'FAIL'}/{calls}" for ok, calls in results)
                  + "   (ended / model calls, run by run)")
            normal_calls += [calls for _, calls in (results if not variant else results[1:])]
            later_ok += [ok for ok, _ in results[1:]]
            for ok, calls in results:
                patched += calls > 0
                recovered += ok and calls == 1
    per_run = sum(normal_calls) / len(normal_calls)
    success = sum(later_ok) / len(later_ok)
    recovery = recovered / patched if patched else 1.0
    for label, value, target, met in (
            ("model calls per normal rerun", f"{per_run:.2f}", "≤ 0.2", per_run <= 0.2),
            ("success from the second run on", f"{success:.0%}", "≥ 95%", success >= 0.95),
            ("recovery within one patch", f"{recovery:.0%} ({recovered}/{patched})", "≥ 80%", recovery >= 0.8)):
        print(f"  {label:<32} {value:>12}  target {target}: {'met' if met else 'NOT met'}")


async def by_hand(url: str) -> float:
    """The same five actions in plain Playwright: no observation, no checks, no events."""
    started = time.perf_counter()
    await darkmode_by_hand(url)
    return time.perf_counter() - started


async def main(runs: int, latency: float, slo_runs: int) -> None:
    with HardSite() as site:
        await timings(site, runs, latency)
        print(f"seed 002 SLOs, {slo_runs} reruns on each site:")
        await slos(site, slo_runs, latency)


async def timings(site: HardSite, runs: int, latency: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
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
    parser.add_argument("--slo-runs", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.latency, arguments.slo_runs))

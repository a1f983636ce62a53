"""What worked before is used again: a goal in other words and with other values finds its
recipe, and a recipe exported as code runs beside a rerun and a hand-written script.

    python bench/recipe_finding.py [--latency 1.5]

1. The store's cart flow is recorded once ("put Blue Kettle in the cart", PRODUCT a variable).
   Then ten goals in other wordings, with other products, each run with `goalbot run --yes` twice:
   as it comes (the goal finds the recipe) and with --no-recipes (planned by the scripted model,
   whose every answer takes --latency seconds as a real model's does). Prints each goal's model
   calls and wall time both ways, and whether it found the recipe.
2. The darkmode flow, each in its own process from spawn to exit: the recipe exported with
   `recipe export --as playwright` and run with plain Python, `goalbot rerun`, and the same
   five actions written by hand (bench/batch_by_hand.py). Medians over --runs.

Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from flows_kit import cart_script  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import darkmode_script  # noqa: E402
from storage.db import connect  # noqa: E402

WORDINGS = [
    ("add the Copper Teapot to the cart", "Copper Teapot"), ("put the Green Mug in my cart", "Green Mug"),
    ("place a Blue Kettle into the basket", "Blue Kettle"), ("add Green Mug to cart", "Green Mug"),
    ("please put the Copper Teapot in the basket", "Copper Teapot"), ("put Blue Kettle in my bag", "Blue Kettle"),
    ("add the Copper Teapot Lid to my cart", "Copper Teapot Lid"), ("put a Green Mug in the trolley", "Green Mug"),
    ("insert the Blue Kettle into my cart", "Blue Kettle"), ("add Copper Teapot to the basket", "Copper Teapot"),
]


def goalbot(db: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db), *args], cwd=REPO, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=600, env=env or dict(os.environ))
    return done, time.perf_counter() - started


def calls_of_latest(db: Path) -> int:
    store = connect(db)
    row = store.execute("select model_calls from sessions order by started_at desc limit 1").fetchone()
    store.close()
    return int(row[0] or 0)


def finding(site: HardSite, folder: Path, latency: float) -> None:
    db = folder / "finding.db"
    with ScriptedModelServer(Script(cart_script())) as model:
        done, _ = goalbot(db, "run", "put Blue Kettle in the cart", "--url", site.page("catalogue"), "--no-tui", "--yes",
                          "--base-url", model.base_url, "--model", "scripted", "--save-recipe", "cart",
                          "--var", "PRODUCT=Blue Kettle")
    if done.returncode != 0:
        raise SystemExit(f"recording the cart failed: {done.stderr.strip().splitlines()[-1:]}")
    print(f"  {'goal':<46} {'found':<22} {'calls':>5} {'s':>6}   {'--no-recipes calls':>18} {'s':>6}")
    totals = {"found": [0, 0.0], "planned": [0, 0.0]}
    found_count = 0
    for goal, product in WORDINGS:
        script = {"server": {"latency_s": latency, "repeat": True}, **cart_script()}
        with ScriptedModelServer(Script(script)) as model:
            flags = ["--url", site.page("catalogue"), "--no-tui", "--yes", "--base-url", model.base_url,
                     "--model", "scripted"]
            site.reset()
            found, found_s = goalbot(db, "run", goal, *flags)
            found_calls, bought = calls_of_latest(db), site.reached("/api/cart", "POST")
            planned, planned_s = goalbot(db, "run", goal, *flags, "--no-recipes")
            planned_calls = calls_of_latest(db)
        which = "recipe" if "from recipe" in found.stderr else "planned"
        found_count += which == "recipe"
        right = bought == [f'{{"item":"{product}"}}']
        print(f"  {goal:<46} {which + (' (right item)' if right else ' (WRONG item)'):<22} {found_calls:>5} "
              f"{found_s:6.1f}   {planned_calls:>18} {planned_s:6.1f}"
              + ("" if found.returncode == 0 and planned.returncode == 0 else "   (a run failed)"))
        totals["found"][0] += found_calls
        totals["found"][1] += found_s
        totals["planned"][0] += planned_calls
        totals["planned"][1] += planned_s
    n = len(WORDINGS)
    print(f"  found the recipe: {found_count}/{n}; per goal: {totals['found'][0] / n:.1f} model calls, "
          f"{totals['found'][1] / n:.1f} s with finding; {totals['planned'][0] / n:.1f} calls, "
          f"{totals['planned'][1] / n:.1f} s planned")


def as_code(site: HardSite, folder: Path, runs: int) -> None:
    db = folder / "code.db"
    with ScriptedModelServer(Script(darkmode_script())) as model:
        done, _ = goalbot(db, "run", "sign in and turn on dark mode", "--url", site.page("darkmode"), "--no-tui",
                          "--yes", "--base-url", model.base_url, "--model", "scripted", "--save-recipe", "darkmode",
                          "--secret", "PW=hunter2")
    if done.returncode != 0:
        raise SystemExit(f"recording darkmode failed: {done.stderr.strip().splitlines()[-1:]}")
    script = folder / "darkmode.py"
    goalbot(db, "recipe", "export", "darkmode", str(script), "--as", "playwright")
    url = site.page("darkmode")

    def timed(command: list[str], env: dict[str, str]) -> float:
        started = time.perf_counter()
        ran = subprocess.run(command, cwd=folder, text=True, capture_output=True, env=env, timeout=300)
        if ran.returncode != 0:
            print(f"  ({command[1]} failed: {ran.stderr.strip().splitlines()[-1:]})")
        return time.perf_counter() - started

    plain = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SECRET_PW": "hunter2", "HOME": str(folder)}
    figures = {
        "exported script (python darkmode.py)": [timed([sys.executable, str(script), "--url", url], plain)
                                                 for _ in range(runs)],
        "goalbot rerun darkmode --no-tui --yes": [timed(
            [sys.executable, "-m", "goalbot", "--db", str(db), "rerun", "darkmode", "--url", url, "--no-tui", "--yes",
             "--secret", "PW=hunter2", "--min-interval", "0"], dict(os.environ)) for _ in range(runs)],
        "hand-written Playwright script": [timed([sys.executable, str(REPO / "bench" / "batch_by_hand.py"), url],
                                                 dict(os.environ)) for _ in range(runs)],
    }
    hand = statistics.median(figures["hand-written Playwright script"])
    for name, times in figures.items():
        median = statistics.median(times)
        print(f"  {name:<40} {median:6.2f} s  {median / hand:5.2f}× by hand")


def main(latency: float, runs: int) -> None:
    with HardSite() as site, tempfile.TemporaryDirectory() as tmp:
        print(f"a goal in ten wordings (the model answers in {latency:g} s when asked):")
        finding(site, Path(tmp), latency)
        print(f"\nthe darkmode flow from spawn to exit, median of {runs}:")
        as_code(site, Path(tmp), runs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.5)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    main(arguments.latency, arguments.runs)

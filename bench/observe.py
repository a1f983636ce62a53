"""How big and how fast the navigator's observation is on each page of the hard test site.

    python bench/observe.py [--runs 7]

For every page: elements listed, characters of the rendered observation, the time of the first
observation after loading (styles not yet computed), and the median time to observe it again
without and with the JPEG screenshot. Nothing here asserts; it prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from goalbot import actions as A  # noqa: E402
from goalbot.operators.browser.operator import BrowserOperator  # noqa: E402
from hardsite.server import PAGES, HardSite  # noqa: E402

PAGE_NAMES = sorted(p.stem for p in PAGES.glob("*.html")) + ["table"]


async def median_ms(operator: BrowserOperator, runs: int, screenshot: bool) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await operator.observe(screenshot=screenshot)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def main(runs: int) -> None:
    operator = BrowserOperator()
    await operator.start(None)
    print(f"{'page':<14}{'elements':>9}{'chars':>8}{'first ms':>10}{'text ms':>9}{'+shot ms':>10}")
    total = 0
    try:
        with HardSite() as site:
            for name in PAGE_NAMES:
                await operator.execute(A.Navigate(url=site.page(name)))
                started = time.perf_counter()
                first = await operator.observe(screenshot=False)
                first_ms = (time.perf_counter() - started) * 1000
                text_ms = await median_ms(operator, runs, screenshot=False)
                shot_ms = await median_ms(operator, runs, screenshot=True)
                print(f"{name:<14}{len(first.elements):>9}{len(first.render()):>8}{first_ms:>10.0f}{text_ms:>9.0f}{shot_ms:>10.0f}")
                total += len(first.render())
    finally:
        await operator.close()
    # Compare this across commits: what the navigator reads must not grow without a reason.
    print(f"{'all pages':<14}{'':>9}{total:>8}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    asyncio.run(main(parser.parse_args().runs))

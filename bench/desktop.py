"""Figures for the desktop operator on an Xvfb screen of its own: how long a look at the screen
takes (capture + JPEG), the change fingerprint, reading the words under a click (tesseract), and
a click from start to its verdict (which includes the 0.3 s the application gets to redraw).

    python bench/desktop.py [--size 1920x1080]

Prints medians; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goalbot import actions as A  # noqa: E402
from goalbot.operators.desktop import DesktopOperator  # noqa: E402


async def measure(runs: int) -> dict[str, list[float]]:
    operator = DesktopOperator()
    await operator.start(None)
    figures: dict[str, list[float]] = {"observe": [], "fingerprint": [], "click": [], "read": []}
    for _ in range(runs):
        started = time.perf_counter()
        await operator.observe()
        figures["observe"].append(time.perf_counter() - started)
        started = time.perf_counter()
        await operator.signature()
        figures["fingerprint"].append(time.perf_counter() - started)
        started = time.perf_counter()
        await operator.landing(A.Click(x=400, y=300))
        figures["read"].append(time.perf_counter() - started)
        started = time.perf_counter()
        await operator.execute(A.Click(x=400, y=300))
        figures["click"].append(time.perf_counter() - started)
    await operator.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if shutil.which("Xvfb") is None:
        raise SystemExit("bench/desktop.py needs Xvfb (apt-get install xvfb)")
    server = subprocess.Popen(["Xvfb", ":57", "-screen", "0", f"{args.size}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)
        os.environ["DISPLAY"] = ":57"
        figures = asyncio.run(measure(args.runs))
    finally:
        server.terminate()
        server.wait(10)
    print(f"desktop, {args.size} screen, medians of {args.runs}: "
          f"look (capture + JPEG) {statistics.median(figures['observe']) * 1000:.0f} ms, "
          f"change fingerprint {statistics.median(figures['fingerprint']) * 1000:.0f} ms, "
          f"reading the words under a click (OCR, for the GO gate) {statistics.median(figures['read']) * 1000:.0f} ms, "
          f"click to verdict {statistics.median(figures['click']) * 1000:.0f} ms (0.3 s of it is the redraw wait)")


if __name__ == "__main__":
    main()

"""`goalbot observe URL`: print exactly what the navigator would see on a page, and how long it took."""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import time
from pathlib import Path

from PIL import Image

from goalbot.operators.base import OperatorError
from goalbot.operators.browser import OBSERVATION_BUDGET, BrowserOperator
from goalbot.operators.browser_launch import BrowserOptions
from goalbot.operators.som import draw_marks

SOM_DEFAULT = Path("goalbot-som.png")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    observe = sub.add_parser("observe", help="print what the navigator sees on a page")
    observe.add_argument("url")
    observe.add_argument("--screenshot", type=Path, metavar="FILE",
                         help="also save the screenshot (PNG, or JPEG by the file's suffix)")
    observe.add_argument("--som", action="store_true",
                         help="draw each element's index in a box on the screenshot (Set-of-Mark)")
    observe.add_argument("--budget", type=int, default=OBSERVATION_BUDGET,
                         help=f"characters the observation may take (default {OBSERVATION_BUDGET})")
    return observe


async def _observe(options: BrowserOptions, url: str, budget: int, picture: Path | None, som: bool) -> int:
    operator = BrowserOperator(options, budget=budget)
    try:
        await operator.start(url)
        started = time.perf_counter()
        observation = await operator.observe(screenshot=picture is not None)
        took_ms = (time.perf_counter() - started) * 1000
        text = observation.render()
        print(text)
        print(f"\n-- observed in {took_ms:.0f} ms: {len(observation.elements)} elements, "
              f"{len(text)} characters (budget {budget})", file=sys.stderr)
        if picture is not None:
            fmt = "JPEG" if picture.suffix.lower() in (".jpg", ".jpeg") else "PNG"
            data = draw_marks(observation, fmt) if som else _convert(observation.screenshot or b"", fmt)
            picture.write_bytes(data)
            print(f"-- screenshot{' with marks' if som else ''} saved to {picture}", file=sys.stderr)
    except OperatorError as exc:
        print(f"goalbot: {exc}", file=sys.stderr)
        return 1
    finally:
        await operator.close()
    return 0


def _convert(jpeg: bytes, fmt: str) -> bytes:
    if fmt == "JPEG":
        return jpeg
    out = io.BytesIO()
    Image.open(io.BytesIO(jpeg)).save(out, format="PNG")
    return out.getvalue()


def run(args: argparse.Namespace, options: BrowserOptions) -> int:
    if args.budget < 500:
        print("goalbot: --budget below 500 characters leaves no room for the page", file=sys.stderr)
        return 2
    picture = args.screenshot or (SOM_DEFAULT if args.som else None)
    return asyncio.run(_observe(options, args.url, args.budget, picture, args.som))

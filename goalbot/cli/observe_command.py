"""`goalbot observe URL`: print exactly what the navigator would see on a page, and how long it
took. The page is opened by the same rules as a run's (schemes, --allow-domain)."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import sys
import time
from pathlib import Path

from PIL import Image

from goalbot.cli.terminal import fail
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.som import draw_marks
from goalbot.service.looking import page_to_look_at
from goalbot.service.refusal import Refusal
from goalbot.service.run_setup import browser_options
from goalbot.service.settings import Settings

SOM_DEFAULT = Path("goalbot-som.png")


async def _observe(options: BrowserOptions, settings: Settings, url: str, budget: int, picture: Path | None,
                   som: bool, as_json: bool = False) -> int:
    try:
        async with page_to_look_at(url, options, settings.allow_domain, settings.allow_scheme, budget) as operator:
            started = time.perf_counter()
            observation = await operator.observe(screenshot=picture is not None)
            took_ms = (time.perf_counter() - started) * 1000
    except Refusal as refusal:
        return fail(refusal)
    except OperatorError as exc:
        print(f"goalbot: {exc}", file=sys.stderr)
        return 1
    text = observation.render()
    if as_json:
        elements = [element.model_dump(exclude_none=True, exclude={"kind"}) for element in observation.elements.values()]
        print(json.dumps({"url": observation.url, "title": observation.title, "observation": text,
                          "elements": elements, "took_ms": round(took_ms)}, ensure_ascii=False))
    else:
        print(text)
    print(f"\n-- observed in {took_ms:.0f} ms: {len(observation.elements)} elements, "
          f"{len(text)} characters (budget {budget})", file=sys.stderr)
    if picture is not None:
        fmt = "JPEG" if picture.suffix.lower() in (".jpg", ".jpeg") else "PNG"
        data = draw_marks(observation, fmt) if som else _convert(observation.screenshot or b"", fmt)
        picture.write_bytes(data)
        print(f"-- screenshot{' with marks' if som else ''} saved to {picture}", file=sys.stderr)
    return 0


def _convert(jpeg: bytes, fmt: str) -> bytes:
    if fmt == "JPEG":
        return jpeg
    out = io.BytesIO()
    Image.open(io.BytesIO(jpeg)).save(out, format="PNG")
    return out.getvalue()


def cmd_observe(args: argparse.Namespace, settings: Settings, _db_path: Path) -> int:
    options = browser_options(args, settings.browser_path)
    if args.budget < 500:
        print("goalbot: --budget below 500 characters leaves no room for the page", file=sys.stderr)
        return 2
    picture = args.screenshot or (SOM_DEFAULT if args.som else None)
    return asyncio.run(_observe(options, settings, args.url, args.budget, picture, args.som, args.json))

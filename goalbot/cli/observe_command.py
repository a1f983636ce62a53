"""`goalbot observe URL`: print exactly what the navigator would see on a page, and how long it
took. The page is opened by the same rules as a run's (schemes, --allow-domain)."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
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
from goalbot.cli.requests import browser_options
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
        try:
            picture.write_bytes(data)
        except OSError as exc:  # the folder went away or filled up after the check
            print(f"goalbot: cannot write the screenshot to {picture}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"-- screenshot{' with marks' if som else ''} saved to {picture}", file=sys.stderr)
    return 0


def _convert(jpeg: bytes, fmt: str) -> bytes:
    if fmt == "JPEG":
        return jpeg
    out = io.BytesIO()
    Image.open(io.BytesIO(jpeg)).save(out, format="PNG")
    return out.getvalue()


def picture_problem(picture: Path) -> str | None:
    """Why `picture` cannot be written, in a line, or None. Checked before the browser opens: a
    page looked at for nothing, then a traceback, is the worst way to learn of a typo."""
    folder = picture.parent
    if picture.is_dir():
        return f"--screenshot {picture} is a folder; give a file name such as {picture / 'page.png'}"
    if not folder.exists():
        return f"--screenshot {picture}: the folder {folder} does not exist (create it first)"
    if not folder.is_dir():
        return f"--screenshot {picture}: {folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK) or (picture.exists() and not os.access(picture, os.W_OK)):
        return f"--screenshot {picture}: cannot write there (permission denied)"
    return None


def cmd_observe(args: argparse.Namespace, settings: Settings, _db_path: Path) -> int:
    options = browser_options(args, settings.browser_path)
    if args.budget < 500:
        print("goalbot: --budget below 500 characters leaves no room for the page", file=sys.stderr)
        return 2
    picture = args.screenshot or (SOM_DEFAULT if args.som else None)
    if picture is not None and (problem := picture_problem(picture)):
        print(f"goalbot: {problem}", file=sys.stderr)
        return 2
    return asyncio.run(_observe(options, settings, args.url, args.budget, picture, args.som, args.json))

"""OCR engines against each other on the pictures `extract` reads: per engine and kind of picture
(a table with rules, one without, a bar chart, a table of Korean names), how many cells come back
exactly in their place (goalbot.operators.picture_layout's lines) and the time per picture.

    .venv/bin/python bench/ocr_engines.py [--pictures 3] [--cjk-font PATH]

The pictures are drawn here with Pillow, each with its own numbers. Korean needs a font with
Hangul: --cjk-font, else the first `fc-list :lang=ko` finds; without one that kind is skipped."""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goalbot.operators.ocr import picture_words  # noqa: E402
from goalbot.operators.picture_layout import CELL, layout_lines  # noqa: E402

LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
TICKERS = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META", "TSLA", "ORCL", "INTC", "AMD", "NFLX", "IBM"]
KOREAN = ["삼성전자", "카카오", "네이버", "현대차", "셀트리온", "기아", "LG화학", "SK하이닉스"]
Records = list[tuple[str, ...]]


def _table(names: list[str], rng: random.Random, font_path: str, rules: bool) -> tuple[Image.Image, Records]:
    font = ImageFont.truetype(font_path, 15)
    rows = [("Name", "Price", "Change")] + [(name, f"{rng.uniform(5, 2500):,.2f}", f"{rng.uniform(-9, 9):+.2f}")
                                            for name in names]
    widths, height = [150, 110, 90], 28
    image = Image.new("RGB", (sum(widths) + 20, height * len(rows) + 20), "white")
    draw = ImageDraw.Draw(image)
    for r, row in enumerate(rows):
        x = 10
        for c, cell in enumerate(row):
            if rules:
                draw.rectangle([x, 10 + r * height, x + widths[c], 10 + (r + 1) * height], outline="#555")
            draw.text((x + 6, 10 + r * height + 6), cell, font=font, fill="black")
            x += widths[c]
    return image, rows[1:]


def _chart(names: list[str], rng: random.Random, font_path: str) -> tuple[Image.Image, Records]:
    font, values = ImageFont.truetype(font_path, 12), [round(rng.uniform(20, 900), 2) for _ in names]
    width, base, top = 56 * len(names) + 70, 270, max(values)
    image = Image.new("RGB", (width, 310), "white")
    draw = ImageDraw.Draw(image)
    draw.text((width // 2 - 50, 6), "Closing prices", font=ImageFont.truetype(font_path, 15), fill="black")
    for tick in range(5):
        y = base - tick * 50
        draw.text((4, y - 7), f"{int(top * tick / 4)}", font=font, fill="#777")
        draw.line([44, y, width - 8, y], fill="#ddd")
    for n, (name, value) in enumerate(zip(names, values, strict=True)):
        x, bar = 56 + n * 56, int(200 * value / top)
        draw.rectangle([x, base - bar, x + 38, base], fill="#4477aa")
        for text, y in ((f"{value:,.2f}", base - bar - 17), (name, base + 6)):
            draw.text((x + 19 - draw.textlength(text, font=font) / 2, y), text, font=font, fill="black")
    return image, [(f"{value:,.2f}", name) for name, value in zip(names, values, strict=True)]


def _exact_cells(lines: list[str], records: Records) -> int:
    """For each record, the cells equal and in place on the line that holds the most of them."""
    split = [[cell.strip() for cell in line.split(CELL.strip())] for line in lines]
    return sum(max((sum(1 for at, cell in enumerate(record) if at < len(line) and line[at] == cell)
                    for line in split), default=0) for record in records)


def _kinds(cjk_font: str | None) -> dict[str, Callable[[random.Random], tuple[Image.Image, Records]]]:
    kinds: dict[str, Callable[[random.Random], tuple[Image.Image, Records]]] = {
        "table with rules": lambda rng: _table(TICKERS[:8], rng, LATIN_FONT, True),
        "table without rules": lambda rng: _table(TICKERS[:8], rng, LATIN_FONT, False),
        "bar chart": lambda rng: _chart(TICKERS, rng, LATIN_FONT),
    }
    if cjk_font:
        kinds["Korean names"] = lambda rng: _table(KOREAN, rng, cjk_font, False)
    return kinds


def _cjk_font(given: str | None) -> str | None:
    if given or not shutil.which("fc-list"):
        return given
    found = subprocess.run(["fc-list", ":lang=ko", "file"], capture_output=True, text=True).stdout.split(":")[0]
    return found.strip() or None


def _engines() -> list[tuple[str, str, str]]:
    engines = [("tesseract eng", "tesseract", "eng"), ("tesseract eng+kor", "tesseract", "eng+kor")]
    try:
        import rapidocr_onnxruntime  # noqa: F401
        engines.append(("rapidocr", "rapidocr", "eng"))
    except ImportError:
        print("rapidocr-onnxruntime is not installed: its rows are left out")
    return engines


async def main(pictures: int, cjk_font: str | None) -> None:
    font = _cjk_font(cjk_font)
    if font is None:
        print("no font with Hangul (--cjk-font, or fc-list :lang=ko): 'Korean names' is left out")
    print(f"{'engine':<20} {'picture':<22} {'cells exact':>13} {'s / picture':>12}")
    for label, engine, languages in _engines():
        if engine == "rapidocr":
            await picture_words(Image.new("RGB", (40, 20), "white"), languages, engine)  # loads its models once
        for kind, draw in _kinds(font).items():
            exact = total = 0
            spent = 0.0
            for seed in range(pictures):
                image, records = draw(random.Random(seed))
                started = time.perf_counter()
                words = await picture_words(image, languages, engine)
                spent += time.perf_counter() - started
                exact += _exact_cells(layout_lines(words), records)
                total += sum(len(record) for record in records)
            print(f"{label:<20} {kind:<22} {f'{exact}/{total}':>13} {spent / pictures:>12.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=int, default=3, help="pictures of each kind (each its own numbers)")
    parser.add_argument("--cjk-font", help="a font file with Hangul, for the Korean pictures")
    options = parser.parse_args()
    asyncio.run(main(options.pictures, options.cjk_font))

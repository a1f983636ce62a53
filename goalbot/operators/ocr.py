"""Text in a picture, by OCR: the desktop's words under a click, and the words drawn on a canvas
or an image that `extract` reads. `picture_words` gives each word with its box, so a picture's
rows and columns can be rebuilt (goalbot.operators.picture_layout); `picture_text` gives lines.
The engine is tesseract; rapidocr-onnxruntime, when installed, is used where tesseract is not or
when GOALBOT_OCR_ENGINE=rapidocr names it (its bundled models read Latin and Chinese script, no
Korean). Without either it reads nothing."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import os
import shutil
import statistics
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageOps

OCR_TIMEOUT_S = 10.0
ENGINE_VARIABLE = "GOALBOT_OCR_ENGINE"  # "tesseract" or "rapidocr": a person's choice beats ours
SPARSE_TEXT = "11"  # tesseract's "as much text as possible, in no particular order": charts and tables alike
UPSCALE = 2  # screen text is ~12 px high; tesseract reads best at ~25-30 px
# Two tesseract passes side by side: one with every coloured pixel made white, so a chart's bars
# vanish and the value drawn on a bar's top is not read as part of the bar (text is mostly black
# or grey), and the plain picture for what the first lost: coloured text, a red "-4.2".
COLOURED = 90  # how far apart a pixel's red, green and blue are for it to be a colour, not a grey
SIGNS = "+-\u2212"


@dataclass(frozen=True)
class Word:
    """A word (or, for rapidocr, a run of words) and its box, in the picture's own pixels."""

    text: str
    left: float
    top: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height


def available() -> bool:
    """Whether `picture_text` (tesseract) can read anything."""
    return shutil.which("tesseract") is not None


def words_available() -> bool:
    """Whether `picture_words` has an engine."""
    return available() or _rapidocr_installed()


def _rapidocr_installed() -> bool:
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def engine() -> str:
    """The engine named in GOALBOT_OCR_ENGINE when it is there, else tesseract, else rapidocr.
    tesseract first: on screen pictures it read as many cells exactly, and Korean, which
    rapidocr's bundled models cannot (bench/ocr_engines.py)."""
    wanted = os.environ.get(ENGINE_VARIABLE, "").strip().lower()
    has_tesseract = shutil.which("tesseract") is not None
    if wanted == "rapidocr" and _rapidocr_installed():
        return "rapidocr"
    if has_tesseract:
        return "tesseract"
    return "rapidocr" if _rapidocr_installed() else "none"


async def picture_text(image: Image.Image, languages: str = "eng+kor") -> str:
    """The text tesseract finds in `image`, line by line; "" when it finds none or is not there."""
    if shutil.which("tesseract") is None or image.width < 2 or image.height < 2:
        return ""
    out = await _tesseract(_prepared(image), ["-l", languages, "--psm", "6"])
    return out.strip()


async def picture_words(image: Image.Image, languages: str = "eng", chosen: str | None = None) -> list[Word]:
    """Every word OCR finds in `image`, with its box; [] when it finds none or no engine is there.
    `chosen` names the engine (a benchmark compares them); else `engine()` picks."""
    if image.width < 2 or image.height < 2:
        return []
    picked = chosen or engine()
    if picked == "rapidocr":
        return await asyncio.to_thread(_rapidocr_words, image.convert("RGB"))
    if picked == "tesseract":
        arguments = ["-l", languages, "--psm", SPARSE_TEXT, "tsv"]
        plain, greys = await asyncio.gather(_tesseract(_prepared(image), arguments),
                                            _tesseract(_prepared(_greys_only(image)), arguments))
        return _union(_plausible(_tsv_words(greys, UPSCALE)), _plausible(_tsv_words(plain, UPSCALE)))
    return []


def _greys_only(image: Image.Image) -> Image.Image:
    red, green, blue = image.convert("RGB").split()
    spread = ImageChops.subtract(ImageChops.lighter(ImageChops.lighter(red, green), blue),
                                 ImageChops.darker(ImageChops.darker(red, green), blue))
    grey = ImageOps.grayscale(image)
    grey.paste(255, mask=spread.point(lambda level: 255 if level > COLOURED else 0))
    return grey


def _prepared(image: Image.Image) -> bytes:
    grey = ImageOps.grayscale(image)
    grey = grey.resize((grey.width * UPSCALE, grey.height * UPSCALE), Image.Resampling.LANCZOS)
    png = io.BytesIO()
    grey.save(png, format="PNG")
    return png.getvalue()


async def _tesseract(png: bytes, arguments: list[str]) -> str:
    process = await asyncio.create_subprocess_exec(
        "tesseract", "stdin", "stdout", *arguments,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(png), OCR_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        return ""
    return out.decode("utf-8", "replace")


def _tsv_words(tsv: str, scale: float) -> list[Word]:
    """tesseract's TSV rows of level 5 (a word), boxes back in the picture's pixels."""
    words = []
    for line in tsv.splitlines()[1:]:
        columns = line.split("\t")
        if len(columns) < 12 or columns[0] != "5" or not columns[11].strip():
            continue
        try:
            left, top, width, height = (int(value) / scale for value in columns[6:10])
            confidence = float(columns[10])
        except ValueError:
            continue
        if confidence >= 0:  # NFKC: a full-width "Ｌ" read beside Hangul is an "L"
            words.append(Word(unicodedata.normalize("NFKC", columns[11].strip()), left, top, width, height))
    return words


def _union(first: list[Word], second: list[Word]) -> list[Word]:
    """The first pass's words, and the second's that lie where the first found nothing; a number
    whose sign only the second pass saw ("-4.41" for "4.41") is taken with its sign."""
    kept = [next((other for other in second if _overlaps(word, other) and other.text[1:] == word.text
                  and other.text[:1] in SIGNS), word) for word in first]
    return kept + [word for word in second if not any(_overlaps(word, other) for other in first)]


def _overlaps(one: Word, other: Word) -> bool:
    return min(one.right, other.right) > max(one.left, other.left) and \
        min(one.bottom, other.bottom) > max(one.top, other.top)


def _plausible(words: list[Word]) -> list[Word]:
    """The words that are text: a bar or a rule read as "I" or "_" is no letter or digit, or is
    far taller than the picture's writing."""
    worded = [word for word in words if any(ch.isalnum() for ch in word.text)]
    if not worded:
        return []
    usual = statistics.median(word.height for word in worded)
    return [word for word in worded if word.height <= usual * 2.5]


@lru_cache(maxsize=1)
def _rapidocr() -> Any:
    from rapidocr_onnxruntime import RapidOCR  # optional, and heavy: only a picture read pays for it

    return RapidOCR()


def _rapidocr_words(image: Image.Image) -> list[Word]:
    import numpy

    try:
        found, _ = _rapidocr()(numpy.asarray(image))
    except Exception:  # noqa: BLE001 - an optional engine's failure reads as no words, never a crash
        return []
    words = []
    for box, text, _score in found or []:
        xs, ys = [point[0] for point in box], [point[1] for point in box]
        if str(text).strip():
            words.append(Word(str(text).strip(), min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return words

"""A PDF the run downloaded (an invoice, a statement), read by its text layer (by OCR when it is a
scan): what `extract` reads when the action before it downloaded one. Each value the model read is
kept as the words written before it on its line (its label) and after it, so a rerun reads the
next document's values there with no model. The same lines serve the words OCR reads in a page's
pictures."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goalbot.operators.json_places import same_value, to_number
from goalbot.operators.ocr import picture_text

if TYPE_CHECKING:
    from PIL import Image

MOST_PAGES = 50
MOST_SCANNED = 5  # pages of a scanned document read by OCR: each takes a tesseract run
MOST_CHARS = 200_000
NUMBER_TOKEN = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def is_pdf(name: str, mime: str) -> bool:
    return mime.startswith("application/pdf") or name.lower().endswith(".pdf")


def pdf_text(path: Path) -> str:
    """The PDF's text, line by line (its first pages, bounded); "" for one with no text layer or
    one that cannot be read."""
    from pypdf import PdfReader  # only a run that downloaded a PDF pays for it
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        text = "\n".join(page.extract_text() or "" for page in reader.pages[:MOST_PAGES])
    except (PyPdfError, OSError, ValueError, KeyError, TypeError):
        return ""
    return text[:MOST_CHARS]


async def document_text(path: Path) -> str:
    """The PDF's text layer; for a scanned one (pictures of pages, no text), what OCR reads in
    its first pages."""
    text = await asyncio.to_thread(pdf_text, path)
    if text.strip():
        return text
    pages = await asyncio.to_thread(_rendered, path)
    return "\n".join([await picture_text(page, "eng") for page in pages])


def _rendered(path: Path) -> list[Image.Image]:
    import pypdfium2 as pdfium  # only a scanned document pays for it

    try:
        document = pdfium.PdfDocument(path)
        return [document[n].render(scale=1.5).to_pil() for n in range(min(len(document), MOST_SCANNED))]
    except (pdfium.PdfiumError, OSError, ValueError):
        return []


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def text_places(data: Any, text: str, document: str = "pdf") -> dict[str, Any] | None:
    """Where each of `data`'s values is written in `text` (a PDF's, or what OCR read in the page's
    pictures): the words before it on its one line and after it. None unless `data` is an object
    of single values each found on exactly one line with a label before it."""
    if not isinstance(data, dict) or not data:
        return None
    lines, fields = _lines(text), {}
    for name, value in data.items():
        if isinstance(value, (dict, list)) or value is None or isinstance(value, bool):
            return None
        spots = [(line, match) for line in lines for match in _candidates(line, value)]
        if len(spots) != 1:
            return None  # nowhere, or in two places: either could be the wrong one next time
        line, (start, end) = spots[0]
        before, after = line[:start].strip(), line[end:].strip()
        if not before:
            return None
        fields[name] = {"after": before, "before": after}
    return {"document": document, "fields": fields}


def _candidates(line: str, value: Any) -> list[tuple[int, int]]:
    if isinstance(value, (int, float)):
        return [m.span() for m in NUMBER_TOKEN.finditer(line) if same_value(m.group(), value)]
    wanted = " ".join(str(value).split())
    if not wanted:
        return []
    at = line.casefold().find(wanted.casefold())
    return [(at, at + len(wanted))] if at >= 0 and line.casefold().count(wanted.casefold()) == 1 else []


def read_text_places(place: dict[str, Any], text: str, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """The values written where `place` says in `text`, typed as the schema says; what is missing."""
    lines, data, misses = _lines(text), {}, []
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    fields = place.get("fields")
    if not isinstance(fields, dict):  # a recipe file is hostile input
        return None, ["the recorded lines name no fields"]
    for name, spot in fields.items():
        if not isinstance(spot, dict):
            misses.append(f"{name}: its recorded line is not a label and an ending")
            continue
        label, end = str(spot.get("after", "")), str(spot.get("before", ""))
        found = next((line[len(label):] for line in lines if label and line.startswith(label)), None)
        if found is not None and end:
            found = found[:found.rfind(end)] if found.rstrip().endswith(end) else None
        if found is None or not found.strip():
            misses.append(f"{name}: no line begins {label!r}")
            continue
        kind = (properties.get(name) or {}).get("type") if isinstance(properties, dict) else None
        value: Any = found.strip()
        if kind in ("number", "integer"):
            value = to_number(value)
            if value is None:
                misses.append(f"{name}: {found.strip()!r} after {label!r} is not a number")
                continue
            value = int(value) if kind == "integer" and float(value).is_integer() else value
        data[name] = value
    return data, misses

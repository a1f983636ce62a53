"""A PDF the run downloaded or the tab shows (an invoice, a statement), read by its text layer (by
OCR when it is a scan): what `extract` reads when the action before it downloaded one, or the tab
shows one in the browser's viewer. Each value the model read is kept as the words written before
it on its line (its label) and after it, so a rerun reads the next document's values there with
no model. The same lines serve the words OCR reads in a page's pictures."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from goalbot.agents.document_items import line_place, read_lines
from goalbot.agents.document_worker import MOST_CHARS
from goalbot.operators.base import DocumentUnread
from goalbot.operators.json_places import same_value, to_number
from goalbot.operators.ocr import picture_text

__all__ = ["DocumentUnread", "document_text", "is_pdf", "read_text_places", "text_places"]

# A document is a site's input: it is read in a process of its own (document_worker.py), killed
# when it takes longer than this, so no PDF can hold a run (or its stop) for minutes.
DOCUMENT_DEADLINE_S = 15.0
MOST_DOCUMENT_BYTES = 20_000_000
NUMBER_TOKEN = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
WHOLE = ""  # the list name of data that is itself a list


def is_pdf(name: str, mime: str) -> bool:
    return mime.startswith("application/pdf") or name.lower().endswith(".pdf")


async def document_text(path: Path) -> str:
    """The PDF's text layer; for a scanned one (pictures of pages, no text), what OCR reads in
    its first pages. DocumentUnread when it is too big, takes too long or cannot be read."""
    size = path.stat().st_size
    if size > MOST_DOCUMENT_BYTES:
        raise DocumentUnread(f"it is {size / 1_000_000:.0f} MB, more than the "
                             f"{MOST_DOCUMENT_BYTES // 1_000_000} MB a document read may be")
    with tempfile.TemporaryDirectory(prefix="goalbot-document-") as renders:
        said = await _worker_said(path, Path(renders))
        refused = next((line["refused"] for line in said if "refused" in line), None)
        if refused is not None:
            raise DocumentUnread(str(refused))
        text = "\n".join(str(line["text"]) for line in said if "text" in line)
        if text.strip():
            return text
        pictures: list[str] = next((line["rendered"] for line in said if "rendered" in line), [])
        return "\n".join([await _ocr(Path(picture)) for picture in pictures])


async def _ocr(picture: Path) -> str:
    from PIL import Image

    with Image.open(picture) as page:
        return await picture_text(page.convert("RGB"), "eng")


async def _worker_said(path: Path, renders: Path) -> list[dict[str, Any]]:
    """What the worker said reading `path`, line by line; killed at the deadline, and when the
    run is stopped while it reads (a stop must end the process, not wait for the library)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "goalbot.agents.document_worker", str(path), str(renders),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=8 * MOST_CHARS)
    assert process.stdout is not None
    said: list[dict[str, Any]] = []
    try:
        async with asyncio.timeout(DOCUMENT_DEADLINE_S):
            async for raw in process.stdout:
                said.append(json.loads(raw))
            await process.wait()
    except TimeoutError:
        pages = next((line["pages"] for line in said if "pages" in line), "?")
        read = sum(1 for line in said if "page" in line)
        raise DocumentUnread(f"reading it took longer than {DOCUMENT_DEADLINE_S:g} s "
                             f"({read} of its {pages} pages read)") from None
    except (ValueError, json.JSONDecodeError):
        raise DocumentUnread("its reader said something that is not a reading") from None
    finally:
        if process.returncode is None:
            process.kill()
            await asyncio.shield(process.wait())
    if not any(line.get("done") for line in said):
        raise DocumentUnread(f"its reader stopped before the end (exit {process.returncode})")
    return said


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def text_places(data: Any, text: str, document: str = "pdf") -> dict[str, Any] | None:
    """Where each of `data`'s values is written in `text` (a PDF's, or what OCR read in the page's
    pictures): the words before it on its one line and after it; in a PDF, a list of records
    (an invoice's items) as the shape of their lines. None unless every value has such a place:
    single values each on exactly one line with a label before it."""
    lines = _lines(text)
    if isinstance(data, list) and document == "pdf":
        found = line_place(data, lines)
        return {"document": document, "fields": {}, "lists": {WHOLE: found[0]}} if found else None
    if not isinstance(data, dict) or not data:
        return None
    fields: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    taken: set[int] = set()
    for name, value in data.items():
        if isinstance(value, list) and document == "pdf" and name != WHOLE:
            found = line_place(value, lines)
            if found is None:
                return None
            lists[name], used = found
            taken |= used
    for name, value in data.items():
        if name in lists:
            continue
        if isinstance(value, (dict, list)) or value is None or isinstance(value, bool):
            return None
        # An item's line is the list's: a total equal to one item's amount is still in one place.
        spots = [(line, match) for n, line in enumerate(lines) if n not in taken
                 for match in _candidates(line, value)]
        if len(spots) != 1:
            return None  # nowhere, or in two places: either could be the wrong one next time
        line, (start, end) = spots[0]
        before, after = line[:start].strip(), line[end:].strip()
        if not before:
            return None
        fields[name] = {"after": before, "before": after}
    return {"document": document, "fields": fields, **({"lists": lists} if lists else {})}


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
    lines, misses = _lines(text), []
    data: dict[str, Any] = {}
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    fields, lists = place.get("fields"), place.get("lists", {})
    if not isinstance(fields, dict) or not isinstance(lists, dict):  # a recipe file is hostile input
        return None, ["the recorded lines name no fields"]
    for name, shape in lists.items():
        records, why = read_lines(shape, lines, _item_types(schema, str(name)))
        if records is None:
            misses.append(f"{name or 'the list'}: {why}")
        elif name == WHOLE:
            return records, misses
        else:
            data[name] = records
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


def _item_types(schema: Any, name: str) -> dict[str, str]:
    """The type the schema gives each field of list `name`'s items (of the schema's own items
    for a list read whole)."""
    holder = schema if name == WHOLE else (schema.get("properties") or {}).get(name) \
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict) else None
    items = holder.get("items") if isinstance(holder, dict) else None
    properties = items.get("properties") if isinstance(items, dict) else None
    if not isinstance(properties, dict):
        return {}
    return {field: kind for field, spec in properties.items() if (kind := _type_of(spec))}


def _type_of(spec: Any) -> str | None:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(kind, list):  # ["number", "null"]
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else None

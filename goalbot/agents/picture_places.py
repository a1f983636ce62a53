"""Where a list read from a picture (a table drawn as an image, a chart on a canvas) lies in the
picture's lines (goalbot.operators.picture_layout: a table's rows, a chart's columns): each field
as the cell it sits in on its record's line, counted from the line's start or, when what is above
a bar varies, from its end. A rerun reads every line shaped like those records there, on any
day's picture, with no model: numbers as numbers."""

from __future__ import annotations

from typing import Any

from goalbot.operators.json_places import same_value, to_number
from goalbot.operators.picture_layout import CELL

DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-"})  # OCR's and fonts' minus signs


def grid_places(data: Any, text: str) -> dict[str, Any] | None:
    """The place of `data`'s list in the picture lines `text`, or None unless every record is on
    a line of its own and each field in the same cell of every record's line. Another line shaped
    like a record (a total) is kept by its name to be passed over, when it has one that no record
    has; else None, since a rerun could not tell it from a record."""
    key, records = _records(data)
    if not records or any(not _flat(record) for record in records):
        return None
    lines = _split(text)
    used = _record_lines(records, lines)
    if used is None:
        return None
    fields: dict[str, dict[str, Any]] = {}
    for name in records[0]:
        cell = _steady_cell(name, records, [lines[n] for n in used])
        if cell is None:
            return None
        fields[name] = {"cell": cell, "kind": _kind([record[name] for record in records])}
    place: dict[str, Any] = {"document": "ocr", "records": key, "fields": fields,
             "cells": sorted({len(lines[n]) for n in used})}
    others = [n for n, line in enumerate(lines) if _shaped(line, fields) and n not in used]
    if others:  # a "Total" row drawn like the records: kept by its name, to pass over next time
        words = next((spot["cell"] for spot in fields.values() if spot["kind"] == "words"), None)
        names = {lines[n][words] for n in others} if words is not None else set()
        if words is None or names & {str(record[name]) for record in records for name in record}:
            return None
        place["except"] = {"cell": words, "names": sorted(names)}
    headers = _headers(lines, used, fields)
    if headers:
        place["headers"] = headers
    return place


def _headers(lines: list[list[str]], used: list[int], fields: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each field's column header: the cells of the line just above the first record, when it has
    as many cells, each words, one a field. A rerun finds the columns by them, so a redesign that
    swaps two columns of numbers is not read the wrong way round."""
    if not used[0]:
        return {}
    above, first = lines[used[0] - 1], lines[used[0]]
    if len(above) != len(first) or not all(any(ch.isalpha() for ch in cell) for cell in above):
        return {}
    headers = {name: above[spot["cell"]] for name, spot in fields.items()}
    return headers if len({cell.casefold() for cell in headers.values()}) == len(headers) else {}


def _by_headers(lines: list[list[str]], fields: dict[str, Any], headers: dict[str, Any],
                ) -> tuple[int, dict[str, Any]] | None:
    """The line of the recorded headers, and each field's cell under its header there."""
    wanted = {name: str(header).casefold() for name, header in headers.items()}
    for n, line in enumerate(lines):
        cells = [cell.casefold() for cell in line]
        if all(header in cells for header in wanted.values()):
            return n, {name: {**spot, "cell": cells.index(wanted[name])} if name in wanted else spot
                       for name, spot in fields.items()}
    return None


def is_grid_place(place: dict[str, Any]) -> bool:
    return place.get("document") == "ocr" and "records" in place


def read_grid_places(place: dict[str, Any], text: str, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """The records on the lines of `text` shaped as `place` says, typed as the schema says; what
    did not read."""
    fields, key = place.get("fields"), place.get("records")
    if not isinstance(fields, dict) or not fields or not all(
            isinstance(spot, dict) and isinstance(spot.get("cell"), int) for spot in fields.values()) \
            or not (key is None or isinstance(key, str)):  # a recipe file is hostile input
        return None, ["the recorded picture cells name no fields"]
    types, lines = _item_types(schema, key), _split(text)
    start, headers = 0, place.get("headers")
    if isinstance(headers, dict) and headers:
        found = _by_headers(lines, fields, headers)
        if found is None:
            return None, ["the page's pictures no longer show the columns " + ", ".join(map(repr, headers.values()))]
        start, fields = found[0] + 1, found[1]
    shaped = [n for n, line in enumerate(lines) if n >= start and _shaped(line, fields)
              and not _passed_over(line, place.get("except"))]
    if not shaped:
        return None, ["no line of the page's pictures reads as a record where the recipe read them"]
    misread = _misread(lines, shaped, place.get("cells"))
    if misread:
        return None, misread
    records = [{name: _typed(lines[n][spot["cell"]], types.get(name), spot.get("kind"))
                for name, spot in fields.items()} for n in shaped]
    return ({key: records} if key is not None else records), []


def _passed_over(line: list[str], rows: Any) -> bool:
    """Whether `line` is one of the rows the recipe passes over (a total), by its name."""
    if not isinstance(rows, dict) or not isinstance(rows.get("cell"), int) or not isinstance(rows.get("names"), list):
        return False
    cell = rows["cell"]
    return -len(line) <= cell < len(line) and line[cell].casefold() in {str(n).casefold() for n in rows["names"]}


def _misread(lines: list[list[str]], shaped: list[int], cells: Any) -> list[str]:
    """The lines among the records' with as many cells as a record's that do not read as one
    (OCR took a "1" for an "l"): a list read short would pass for the whole one."""
    if not isinstance(cells, list):
        return []
    return [f"the picture's line {CELL.join(lines[n])!r} is shaped like a record but does not read as one"
            for n in range(shaped[0], shaped[-1] + 1) if n not in shaped and len(lines[n]) in cells]


def _records(data: Any) -> tuple[str | None, list[dict[str, Any]]]:
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        return None, data
    if isinstance(data, dict) and len(data) == 1:
        (key, value), = data.items()
        if isinstance(value, list) and all(isinstance(item, dict) for item in value):
            return key, value
    return None, []


def _flat(record: dict[str, Any]) -> bool:
    return bool(record) and all(isinstance(value, (str, int, float)) and not isinstance(value, bool)
                                for value in record.values())


def _split(text: str) -> list[list[str]]:
    return [[" ".join(cell.split()) for cell in line.split(CELL.strip())] for line in text.splitlines()
            if line.strip()]


def _matches(cell: str, value: Any) -> bool:
    return same_value(cell.translate(DASHES), value)


def _record_lines(records: list[dict[str, Any]], lines: list[list[str]]) -> list[int] | None:
    """Each record's line, in the picture's order: the first line after the previous record's
    where every one of its values is a cell."""
    used: list[int] = []
    for record in records:
        start = used[-1] + 1 if used else 0
        found = next((n for n in range(start, len(lines))
                      if all(any(_matches(cell, value) for cell in lines[n]) for value in record.values())), None)
        if found is None:
            return None
        used.append(found)
    return used


def _steady_cell(name: str, records: list[dict[str, Any]], lines: list[list[str]]) -> int | None:
    """The cell, counted from the start (0, 1, …) or the end (-1, -2, …), that holds `name` on
    every record's line."""
    common: set[int] | None = None
    for record, line in zip(records, lines, strict=True):
        here = {at for n, cell in enumerate(line) if _matches(cell, record[name]) for at in (n, n - len(line))}
        common = here if common is None else common & here
    if not common:
        return None
    ahead = sorted(at for at in common if at >= 0)
    return ahead[0] if ahead else max(common)


def _kind(values: list[Any]) -> str:
    if all(isinstance(value, int) for value in values):
        return "integer"
    if all(isinstance(value, (int, float)) for value in values):
        return "number"
    return "words" if all(any(ch.isalpha() for ch in str(value)) for value in values) else "text"


def _shaped(line: list[str], fields: dict[str, Any]) -> bool:
    """Whether `line` has every field's cell, each of its kind (a number, words)."""
    for spot in fields.values():
        cell = spot["cell"]
        if not -len(line) <= cell < len(line):
            return False
        value, kind = line[cell], spot.get("kind")
        if kind in ("number", "integer") and to_number(value.translate(DASHES)) is None:
            return False
        if kind == "words" and not any(ch.isalpha() for ch in value):
            return False
        if not value:
            return False
    return True


def _item_types(schema: dict[str, Any], key: str | None) -> dict[str, Any]:
    node: Any = schema if isinstance(schema, dict) else {}
    if key is not None:
        node = (node.get("properties") or {}).get(key) or {}
    items = node.get("items") if isinstance(node, dict) else None
    properties = items.get("properties") if isinstance(items, dict) else None
    return {name: (spec or {}).get("type") for name, spec in properties.items() if isinstance(spec, dict)} \
        if isinstance(properties, dict) else {}


def _typed(cell: str, wanted: Any, kind: Any) -> Any:
    """The cell as the schema's type (else as the recorded value's): "1,312" is 1312, "-7.82" is
    -7.82; a cell that is no number stays words, for the schema to refuse."""
    if wanted in ("number", "integer") or (wanted is None and kind in ("number", "integer")):
        number = to_number(cell.translate(DASHES))
        if number is None:
            return cell
        return int(number) if (wanted or kind) == "integer" and number.is_integer() else number
    return cell

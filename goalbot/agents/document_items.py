"""A document's repeated lines (an invoice's items: description, quantity, unit price, amount),
kept as the one shape each item's line has: its fields in order with the words between them
(`Blue widget 2 $3.50 $7.00` is text, " ", number, " $", number, " $", number). A rerun reads
every line of that shape as an item, however many the next invoice has, with no model."""

from __future__ import annotations

import itertools
import re
from typing import Any

from goalbot.operators.json_places import same_value, to_number

NUMBER_TOKEN = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
NUMBER_PATTERN = r"([-+]?\d[\d,]*(?:\.\d+)?)"
# A recipe file is hostile input, and text fields are lazy wildcards: a shape with many of them
# on a long line could backtrack for minutes, so both are bounded.
MOST_PARTS = 24
MOST_TEXT_FIELDS = 2
MOST_LINE = 300  # an item line is short; the work of a shape grows with its square
MOST_ASSIGNMENTS = 512  # ways one record's values can sit on one line, tried for its shape

Shape = tuple[tuple[str, str], ...]  # ("text", words) or ("number"/"integer"/"text field", name)


def line_place(records: Any, lines: list[str]) -> tuple[dict[str, Any], set[int]] | None:
    """The shape every record's line has, and the lines they are on; None unless each record is
    on a line of its own, all in the one shape, the shape reads them back exactly, and no other
    line has it (a header or a total read as an item next time would be a wrong read)."""
    if not isinstance(records, list) or not records or not all(_flat(record) for record in records):
        return None
    names = list(records[0])
    if any(set(record) != set(names) for record in records):
        return None
    common: set[Shape] | None = None
    for record in records:
        shapes = {shape for line in lines for shape in _shapes(record, line)}
        common = shapes if common is None else common & shapes
        if not common:
            return None
    fitting = [(shape, used) for shape in sorted(common or ())
               if (used := _reads_back(shape, records, lines)) is not None]
    if len(fitting) != 1:
        return None  # two shapes read today's items alike: either could be the wrong one next time
    shape, used = fitting[0]
    return {"line": [list(part) for part in shape], "order": names}, used


def read_lines(place: Any, lines: list[str], item_types: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, str]:
    """The records on the lines shaped as `place` says, typed as the schema says; or None and why."""
    shape = _shape_of(place)
    if shape is None:
        return None, "its recorded item line is not a shape of fields and words"
    pattern, fields = _pattern(shape)
    records = []
    for line in lines:
        if len(line) > MOST_LINE or not (match := pattern.fullmatch(line)):
            continue
        record = _typed(dict(zip(fields, match.groups())), shape, item_types)
        if record is None:
            return None, f"the item line {line!r} does not read as the schema says"
        records.append(_ordered(record, place))
    if not records:
        return None, "no line reads like its recorded item line"
    return records, ""


def shape_in_words(place: Any) -> str:
    """The item line as a person reads it: `{description} {qty} ${unit_price} ${amount}`."""
    shape = _shape_of(place)
    if shape is None:
        return "an item line of the wrong shape"
    return "".join(value if kind == "text" else "{" + value + "}" for kind, value in shape)


def _flat(record: Any) -> bool:
    return isinstance(record, dict) and bool(record) and all(
        isinstance(value, (str, int, float)) and not isinstance(value, bool) for value in record.values())


def _kind(value: Any) -> str:
    if isinstance(value, int):
        return "integer"
    return "number" if isinstance(value, float) else "text field"


def _spans(line: str, value: Any) -> list[tuple[int, int]]:
    if isinstance(value, (int, float)):
        return [m.span() for m in NUMBER_TOKEN.finditer(line) if same_value(m.group(), value)]
    wanted = " ".join(str(value).split()).casefold()
    folded, spans, at = line.casefold(), [], 0
    while wanted and (at := folded.find(wanted, at)) >= 0:
        spans.append((at, at + len(wanted)))
        at += 1
    return spans


def _shapes(record: dict[str, Any], line: str) -> set[Shape]:
    """Every shape `line` has with `record`'s values on it, each in a place of its own."""
    if len(line) > MOST_LINE:
        return set()
    spots = [[(span, name) for span in _spans(line, value)] for name, value in record.items()]
    if not all(spots):
        return set()
    shapes = set()
    for chosen in itertools.islice(itertools.product(*spots), MOST_ASSIGNMENTS):
        ordered = sorted(chosen)
        if any(left[0][1] > right[0][0] for left, right in zip(ordered, ordered[1:])):
            continue  # two values on the same words
        shapes.add(_shape(line, ordered, record))
    return shapes


def _shape(line: str, ordered: list[tuple[tuple[int, int], str]], record: dict[str, Any]) -> Shape:
    parts: list[tuple[str, str]] = []
    at = 0
    for (start, end), name in ordered:
        if line[at:start]:
            parts.append(("text", line[at:start]))
        parts.append((_kind(record[name]), name))
        at = end
    if line[at:]:
        parts.append(("text", line[at:]))
    return tuple(parts)


def _reads_back(shape: Shape, records: list[dict[str, Any]], lines: list[str]) -> set[int] | None:
    if _shape_of({"line": [list(part) for part in shape]}) is None:
        return None
    pattern, fields = _pattern(shape)
    used = [n for n, line in enumerate(lines) if len(line) <= MOST_LINE and pattern.fullmatch(line)]
    if len(used) != len(records):
        return None
    for n, record in zip(used, records):
        match = pattern.fullmatch(lines[n])
        assert match is not None
        if not all(same_value(found, record[name]) for name, found in zip(fields, match.groups())):
            return None
    return set(used)


def _pattern(shape: Shape) -> tuple[re.Pattern[str], list[str]]:
    pieces, fields = [], []
    for kind, value in shape:
        if kind == "text":
            pieces.append(re.escape(value))
            continue
        pieces.append(NUMBER_PATTERN if kind in ("number", "integer") else "(.+?)")
        fields.append(value)
    return re.compile("".join(pieces)), fields


def _shape_of(place: Any) -> Shape | None:
    """The shape a recipe recorded, checked: a recipe file is hostile input."""
    if not isinstance(place, dict) or not isinstance(place.get("line"), list):
        return None
    parts = place["line"]
    kinds = ("text", "number", "integer", "text field")
    if not parts or len(parts) > MOST_PARTS or not all(
            isinstance(part, list) and len(part) == 2 and part[0] in kinds and isinstance(part[1], str)
            and part[1] for part in parts):
        return None
    shape = tuple((str(kind), str(value)) for kind, value in parts)
    fields = [value for kind, value in shape if kind != "text"]
    if not fields or len(set(fields)) != len(fields) or sum(kind == "text field" for kind, _ in shape) > MOST_TEXT_FIELDS:
        return None
    if any(kind == "text field" and after[0] == "text field" for (kind, _), after in zip(shape, shape[1:])):
        return None  # two wildcards side by side can split a line any way
    if all(kind == "text field" for kind, _ in shape):
        return None  # nothing but a wildcard: any line at all would read as an item
    return shape


def _typed(found: dict[str, str], shape: Shape, item_types: dict[str, Any]) -> dict[str, Any] | None:
    recorded = {value: kind for kind, value in shape if kind != "text"}
    record: dict[str, Any] = {}
    for name, words in found.items():
        wanted = item_types.get(name) or {"integer": "integer", "number": "number"}.get(recorded[name], "string")
        if wanted in ("number", "integer"):
            number = to_number(words)
            if number is None:
                return None
            record[name] = int(number) if wanted == "integer" and number.is_integer() else number
        else:
            record[name] = words.strip()
    return record


def _ordered(record: dict[str, Any], place: dict[str, Any]) -> dict[str, Any]:
    order = place.get("order")
    if not isinstance(order, list):
        return record
    return {name: record[name] for name in order if name in record} | record

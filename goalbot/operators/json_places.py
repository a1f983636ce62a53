"""Where extracted data sits in the JSON a page fetched: the response's address and a path into
it for every field. Most pages fetch their data before drawing it, and that JSON keeps its shape
through redesigns that break every selector, so a place found here reads the same data again with
no model — a chart on a canvas and a list that renders 40 of its 5,000 rows included.

Pure: the responses come from the operator (`Fetched`), already kept to the rules of what may be
kept (same site, no credentials; see browser/fetched.py)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Iterator
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator

Key = str | int
MAX_DEPTH = 8  # how deep an array of records may sit in a response
MAX_FIELD_DEPTH = 2  # how deep a record's field may sit in its item ({"price": {"amount": …}})
NUMBER = re.compile(r"^[^\d+-]{0,4}([+-]?\d[\d,]*(?:\.\d+)?)[^\d]{0,4}$")  # "$1,234.50", "12 kg"


@dataclass(frozen=True)
class Fetched:
    """One JSON response the page fetched: its address and its parsed body."""

    url: str
    body: Any


class JsonNode(BaseModel):
    """How one part of the data is read from a response: follow `at` from where the parent is,
    then read each field of an object, each item of a list, or the value itself."""

    at: list[Annotated[str, Field(max_length=200)] | int] = Field(default_factory=list,
                                                                  max_length=MAX_DEPTH + MAX_FIELD_DEPTH)
    fields: dict[str, JsonNode] | None = Field(None, max_length=200)
    each: JsonNode | None = None


class NetworkPlace(BaseModel):
    """A response's address on the page's site (its path, and its query's names) and where the
    data is in it. A recipe file is hostile input: words are printable and the tree is shallow."""

    path: str = Field(max_length=500, pattern=r"^/[^\x00-\x1f\x7f]*$")
    query: list[Annotated[str, Field(max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")]] = Field(
        default_factory=list, max_length=50)
    node: JsonNode

    @field_validator("node")
    @classmethod
    def _shallow(cls, node: JsonNode) -> JsonNode:
        def depth(sub: JsonNode) -> int:
            inner = [*(sub.fields or {}).values(), *([sub.each] if sub.each else [])]
            return 1 + max((depth(child) for child in inner), default=0)

        if depth(node) > MAX_DEPTH:
            raise ValueError(f"a place in JSON is at most {MAX_DEPTH} levels deep")
        return node

    def words(self) -> str:
        asked = f"?{'&'.join(f'{name}=…' for name in self.query)}" if self.query else ""
        return f"GET {self.path}{asked}"


def address(url: str) -> tuple[str, list[str]]:
    parts = urlsplit(url)
    return parts.path or "/", sorted({pair.split("=", 1)[0] for pair in parts.query.split("&") if pair})


def find_place(data: Any, responses: list[Fetched]) -> tuple[NetworkPlace, Any] | None:
    """The place of `data` in one of `responses` (the latest first), and the data read from there
    (the same values, typed as the JSON has them). A list is found only whole: one that is the start
    of a longer list there could be "the first two" as well as a list drawn in part. None when some
    part of it is in none of them."""
    for fetched in reversed(responses):
        node = _node(data, fetched.body)
        if node is not None:
            path, query = address(fetched.url)
            place = NetworkPlace(path=path, query=query, node=node)
            read = read_node(node, fetched.body)
            if read is not _MISSING:
                return place, read
    return None


def read_place(place: NetworkPlace, responses: list[Fetched]) -> tuple[Any, list[str]]:
    """The data at `place` in the latest response from its address, and what was not there."""
    same = [f for f in responses if address(f.url)[0] == place.path]
    exact = [f for f in same if address(f.url)[1] == place.query]
    if not same:
        return None, [f"the page fetched nothing from {place.words()}"]
    for fetched in reversed(exact or same):
        read = read_node(place.node, fetched.body)
        if read is not _MISSING:
            return read, []
    return None, [f"{place.words()} no longer holds the data where it did"]


class _Missing:
    pass


_MISSING: Any = _Missing()


def read_node(node: JsonNode, value: Any) -> Any:
    value = _follow(value, node.at)
    if value is _MISSING:
        return _MISSING
    if node.fields is not None:
        if not isinstance(value, dict):
            return _MISSING
        read = {name: read_node(sub, value) for name, sub in node.fields.items()}
        return _MISSING if any(v is _MISSING for v in read.values()) else read
    if node.each is not None:
        if not isinstance(value, list):
            return _MISSING
        items = [read_node(node.each, item) for item in value]
        return _MISSING if any(v is _MISSING for v in items) else items
    return value


def _follow(value: Any, at: list[Key]) -> Any:
    for key in at:
        if isinstance(key, int) and isinstance(value, list) and -len(value) <= key < len(value):
            value = value[key]
        elif isinstance(key, str) and isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return _MISSING
    return value


def _node(data: Any, body: Any) -> JsonNode | None:
    """How `data` is read from `body`, every part of it found there; None when one is not."""
    if isinstance(data, dict):
        fields = {}
        for name, value in data.items():
            sub = _node(value, body)
            if sub is None:
                return None
            fields[name] = sub
        return JsonNode(fields=fields) if fields else None
    if isinstance(data, list):
        return _list_node(data, body)
    paths = [path for path, value in _walk(body, MAX_DEPTH) if same_value(value, data)]
    # One place only: a value found in two places could be read from the wrong one next time.
    return JsonNode(at=paths[0]) if len(paths) == 1 else None


def _list_node(data: list[Any], body: Any) -> JsonNode | None:
    if not data:
        return None
    records = all(isinstance(item, dict) and item for item in data)
    for path, value in _walk(body, MAX_DEPTH):
        if not isinstance(value, list) or len(value) != len(data):
            continue
        if records:
            each = _record_node(data, value)
            if each is not None:
                return JsonNode(at=path, each=each)
        elif all(same_value(item, wanted) for item, wanted in zip(value, data)):
            return JsonNode(at=path, each=JsonNode())
    return None


def _record_node(records: list[dict[str, Any]], items: list[Any]) -> JsonNode | None:
    """Each field of `records` at one path inside the items of `items`, in order."""
    if not all(isinstance(item, dict) for item in items[:len(records)]):
        return None
    fields: dict[str, JsonNode] = {}
    for name in records[0]:
        first = items[0]
        for at, _ in _walk(first, MAX_FIELD_DEPTH):
            if all(same_value(_follow(item, at), record.get(name, _MISSING)) for item, record in zip(items, records)):
                fields[name] = JsonNode(at=at)
                break
        else:
            return None
    return JsonNode(fields=fields)


def _walk(value: Any, depth: int, at: tuple[Key, ...] = ()) -> Iterator[tuple[list[Key], Any]]:
    """Every value in `value` with its path, shallow ones first within each level."""
    yield list(at), value
    if len(at) >= depth:
        return
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _walk(sub, depth, (*at, key))
    elif isinstance(value, list):
        for n, sub in enumerate(value[:1] if value and isinstance(value[0], (dict, list)) else value[:200]):
            yield from _walk(sub, depth, (*at, n))


def same_value(found: Any, wanted: Any) -> bool:
    """Equal after the normalisation a page's drawing undoes: numbers by value ("$1,234.50" is
    1234.5), words by their letters and spaces, case aside."""
    if found is _MISSING or wanted is _MISSING:
        return False
    if found is None or wanted is None:
        return found is wanted
    if isinstance(found, bool) or isinstance(wanted, bool):
        return found is wanted
    if isinstance(found, (dict, list)) or isinstance(wanted, (dict, list)):
        return json.dumps(found, sort_keys=True) == json.dumps(wanted, sort_keys=True)
    left, right = to_number(found), to_number(wanted)
    if left is not None and right is not None:
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(found, str) and isinstance(wanted, str):
        return " ".join(found.split()).casefold() == " ".join(wanted.split()).casefold() and bool(found.strip())
    return False


def to_number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        match = NUMBER.match(value.strip())
        if match:
            return float(match.group(1).replace(",", ""))
    return None


def without_secrets(responses: list[Fetched], scrub: Callable[[Any], Any]) -> list[Fetched]:
    """`responses` as they may be read while the person's secrets are in play (`scrub` puts a
    reference where one is): a response whose address holds a secret is left out, and every key
    or value that holds one is dropped from a body, so no rung reads a secret back."""
    kept = []
    for fetched in responses:
        if scrub(fetched.url) != fetched.url:
            continue
        kept.append(fetched if scrub(fetched.body) == fetched.body
                    else Fetched(url=fetched.url, body=_unsecret(fetched.body, scrub)))
    return kept


def _unsecret(body: Any, scrub: Callable[[Any], Any]) -> Any:
    if isinstance(body, str):
        return None if scrub(body) != body else body
    if isinstance(body, dict):
        kept = {}
        for key, value in body.items():
            inner = _unsecret(value, scrub) if scrub(str(key)) == str(key) else None
            if inner is not None or (value is None and scrub(str(key)) == str(key)):
                kept[key] = inner
        return kept
    if isinstance(body, list):
        return [_unsecret(item, scrub) for item in body]
    return body

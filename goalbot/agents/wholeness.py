"""Whether what was read is the whole list the page holds. An answer with no records, for a page
that shows some, or the drawn rows of a list the page says is longer, is a read gone short: never
success, whatever the schema's `minItems` allows. Each says what it found and how many of how many."""

from __future__ import annotations

import re
from typing import Any

from goalbot.agents.records import records_in
from goalbot.operators.base import Located, Operator, ReadBack
from goalbot.operators.json_places import Fetched

MOST_DEPTH = 8  # how deep a list of records is looked for in a response
PICTURED_NUMBERS = 3  # numbers in a page's pictures that make it a chart or a table of data
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def list_name(schema: dict[str, Any]) -> str:
    """The name of the list the schema asks for ("quotes"), or "" for a list at the top."""
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and sub.get("type") == "array":
            return str(name)
    return ""


def _item_names(schema: dict[str, Any]) -> set[str]:
    listed = schema if schema.get("type") == "array" else (schema.get("properties") or {}).get(list_name(schema), {})
    items = listed.get("items") if isinstance(listed, dict) else None
    return set((items or {}).get("properties") or {}) if isinstance(items, dict) else set()


def records_fetched(schema: dict[str, Any], responses: list[Fetched]) -> int:
    """The most records the page's own JSON holds in one list that the schema's list could be: held
    under the same name, or of records sharing a field name with the schema's items."""
    name, fields = list_name(schema), _item_names(schema)
    best = 0

    def walk(value: Any, key: str, depth: int) -> None:
        nonlocal best
        if depth > MOST_DEPTH:
            return
        if isinstance(value, dict):
            for sub_key, sub in value.items():
                walk(sub, str(sub_key), depth + 1)
        elif isinstance(value, list) and value:
            records = [item for item in value if isinstance(item, dict)]
            if len(records) == len(value) and ((name and key == name) or fields & set(records[0])):
                best = max(best, len(records))
            elif not records:
                for item in value[:1]:
                    walk(item, key, depth + 1)

    for fetched in responses:
        walk(fetched.body, "", 0)
    return best


async def why_not_empty(operator: Operator, schema: dict[str, Any], scope: int | None, pictured: str) -> str:
    """What says the page holds records, for an answer that has none; "" when nothing does (a page
    that says "No results" answers an empty list rightly)."""
    shown = await operator.shown(list_name(schema), sorted(_item_names(schema)), scope)
    if shown.said:
        return f"the page says it holds {shown.said:,}"
    if shown.rows:
        return f"the page draws {shown.rows} rows of data"
    fetched = records_fetched(schema, await operator.fetched())
    if fetched:
        return f"the page's own data holds {fetched:,}"
    numbers = len(NUMBER.findall(pictured))
    if numbers >= PICTURED_NUMBERS:
        return f"the page's pictures show {numbers} numbers"
    return ""


def shortfall(read: Any, located: Located, back: ReadBack, complete: bool) -> str:
    """How `read` falls short of the list the page holds, or "" when it does not. Only where the
    model read every row drawn, or the first rows of a list drawn in part: "the two newest" of a
    table drawn whole is a choice, not a short read. `complete`: the list read back is `read`."""
    records = records_in(read)
    if records is None or not located.leads or not located.positions:
        return ""
    if not back.scrolled and len(located.positions) < located.drawn:
        return ""
    if back.total is not None and len(records) < back.total:
        why = f": {'; '.join(back.misses[:3])}" if back.misses else ""
        return f"{len(records):,} of {back.total:,} records were read (the page says it holds {back.total:,}){why}"
    if back.scrolled and not complete:
        return (f"{len(records):,} records were read, the rows drawn of a longer list, and scrolling it "
                "through did not read it whole: " + "; ".join(back.misses[:3] or ["its rows did not read"]))
    return ""

"""The list of records in extracted data: what `choose` picks from and a recipe's loop goes
through. Its own module: the recipe commands read it without a run's machinery."""

from __future__ import annotations

from typing import Any


def records_in(data: Any, path: list[str] | None = None) -> list[dict[str, Any]] | None:
    """The list of records at `path` in `data` (the data itself, or its only list, with no path)."""
    node = data
    for part in path or []:
        node = node.get(part) if isinstance(node, dict) else None
    if path is None and isinstance(node, dict):
        lists = [value for value in node.values() if isinstance(value, list)]
        node = lists[0] if len(lists) == 1 else node
    if isinstance(node, list) and all(isinstance(item, dict) for item in node):
        return node
    return None

"""The seats the extract-and-choose tests put on hardsite's seat-picker page, day by day, and the
schema and policies they read and choose them by."""

from __future__ import annotations

from typing import Any

SEAT = {"type": "object", "required": ["label", "row", "price", "available"], "additionalProperties": False,
        "properties": {"label": {"type": "string"}, "row": {"type": "integer", "minimum": 1},
                       "price": {"type": "number", "minimum": 0}, "available": {"type": "boolean"}}}
SEATS_SCHEMA = {"type": "object", "required": ["seats"], "additionalProperties": False,
                "properties": {"seats": {"type": "array", "minItems": 1, "items": SEAT}}}
POLICIES = {"cheapest_front": {
    "hard": [{"field": "available", "op": "==", "value": True},
             {"field": "price", "op": "<=", "value": "{{vars.MAX}}"}],
    "score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": 10}],
    "tie_break": ["price_asc", "label_asc"], "pick": "argmax"}}
FRIDAY = [{"label": "A1", "row": 1, "price": 62.0, "status": "available"},
          {"label": "A2", "row": 1, "price": 49.0, "status": "available"},
          {"label": "A7", "row": 1, "price": 45.0, "status": "sold"},
          {"label": "B4", "row": 2, "price": 38.0, "status": "available"}]
# The next day: A2 is gone, A7 is back and cheaper, a new row-1 seat costs too much for MAX=55.
SATURDAY = [{"label": "A2", "row": 1, "price": 49.0, "status": "sold"},
            {"label": "A7", "row": 1, "price": 44.5, "status": "available"},
            {"label": "A9", "row": 1, "price": 58.0, "status": "available"},
            {"label": "C3", "row": 3, "price": 20.0, "status": "available"}]


def as_data(seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {"seats": [{"label": s["label"], "row": s["row"], "price": s["price"],
                       "available": s["status"] == "available"} for s in seats]}

"""The seats the extract-and-choose tests put on hardsite's seat-picker page, day by day, and the
schema and policies they read and choose them by."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hardsite.server import HardSite
from kit import answer, call, finished, plan, run_goal, verdict

GOAL = "take the cheapest front-row seat under the limit"

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


def seat_files(tmp_path: Path) -> tuple[Path, Path]:
    schema, policies = tmp_path / "seats.schema.json", tmp_path / "policies.json"
    schema.write_text(json.dumps(SEATS_SCHEMA))
    policies.write_text(json.dumps(POLICIES))
    return schema, policies


def record_seats(hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path,
                 *flags: str) -> tuple[Any, Any, list[dict[str, Any]]]:
    """`goalbot run` on hardsite's seat picker, extracting the seats and choosing by
    `cheapest_front` under MAX=55, saved as recipe `seats`; the result, the model and the events."""
    hardsite.reset()  # the site is shared by the worker's tests: no layout or seats of another test
    hardsite.posted["seats"] = FRIDAY
    schema, policies = seat_files(tmp_path)
    model = model_server({
        "planner": [plan("Read the seats and take the cheapest front-row seat under the limit")],
        "navigator": [answer(call("extract", instruction="every seat with its row, price and whether it is free",
                                  key="seats", schema="seats"),
                             call("choose", **{"from": "seats"}, policy="cheapest_front", act=True)),
                      finished(summary="picked a seat")],
        "extractor": [answer(call("extracted", data=as_data(FRIDAY)))] * 2,
        "validator": [verdict(True, "a seat was picked"), verdict(True, "a seat was picked")],
    })
    result, events = run_goal(db_path, model, hardsite.page("seat-picker"), GOAL, "--schema", f"seats={schema}",
                              "--policies", str(policies), "--var", "MAX=55", "--save-recipe", "seats", *flags)
    return result, model, events

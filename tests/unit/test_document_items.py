"""An invoice's items kept as the shape of their lines: read back exactly, however many the next
invoice has; never a shape that a header or a total also has, nor one two ways of reading
today's items disagree on; and a recipe file's shape checked as the hostile input it is."""

from __future__ import annotations

import time
from typing import Any

import pytest

from goalbot.agents.document_items import line_place, read_lines
from goalbot.agents.documents import read_text_places, text_places

TYPES = {"description": "string", "qty": "integer", "unit_price": "number", "amount": "number"}
ITEMS = [{"description": "Blue widget", "qty": 2, "unit_price": 3.5, "amount": 7.0},
         {"description": "Cable 10 m", "qty": 3, "unit_price": 1.0, "amount": 3.0}]
LINES = ["ACME", "Description Qty Unit price Amount", "Blue widget 2 $3.50 $7.00", "Cable 10 m 3 $1.00 $3.00",
         "Total due: $10.00 USD"]


def test_items_are_read_back_by_their_lines_shape_however_many_there_are() -> None:
    found = line_place(ITEMS, LINES)
    assert found is not None
    place, used = found
    assert used == {2, 3}
    later = ["Description Qty Unit price Amount", "Ink 1 $30.00 $30.00", "Paper A4, 500 sheets 4 $5.25 $21.00",
             "Pens 12 $1,000.50 $12,006.00", "Total due: $12,057.00 USD"]
    records, why = read_lines(place, later, TYPES)
    assert why == "" and records == [
        {"description": "Ink", "qty": 1, "unit_price": 30.0, "amount": 30.0},
        {"description": "Paper A4, 500 sheets", "qty": 4, "unit_price": 5.25, "amount": 21.0},
        {"description": "Pens", "qty": 12, "unit_price": 1000.5, "amount": 12006.0}]
    assert read_lines(place, ["Total due: $3.00 USD"], TYPES) == (None, "no line reads like its recorded item line")


def test_a_total_equal_to_an_items_amount_still_has_its_one_place() -> None:
    one = {"total": 7.0, "items": ITEMS[:1]}
    place = text_places(one, "Blue widget 2 $3.50 $7.00\nTotal due: $7.00 USD")
    assert place is not None and place["fields"]["total"] == {"after": "Total due: $", "before": "USD"}
    schema = {"properties": {"total": {"type": "number"}, "items": {"items": {"properties": {
        name: {"type": kind} for name, kind in TYPES.items()}}}}}
    assert read_text_places(place, "Red 1 $2.00 $2.00\nGreen 2 $1.00 $2.00\nTotal due: $4.00 USD", schema) == (
        {"items": [{"description": "Red", "qty": 1, "unit_price": 2.0, "amount": 2.0},
                   {"description": "Green", "qty": 2, "unit_price": 1.0, "amount": 2.0}], "total": 4.0}, [])


def test_no_shape_when_another_line_has_it_or_the_items_disagree() -> None:
    # "Shipping 1 $5.00 $5.00" is shaped like an item the model did not call one: a rerun would.
    assert line_place(ITEMS, LINES + ["Shipping 1 $5.00 $5.00"]) is None
    assert line_place(ITEMS, ["Blue widget 2 $3.50 $7.00", "Cable 10 m: 3 at $1.00 = $3.00"]) is None
    assert line_place([{"name": "Blue widget"}], ["Blue widget"]) is None  # a bare wildcard reads every line
    assert line_place([], LINES) is None and line_place([{"a": [1]}], LINES) is None


@pytest.mark.parametrize("shape", [None, {"line": "x"}, {"line": []}, {"line": [["text", "a"]]},
                                   {"line": [["regex", ".*"]]}, {"line": [["text field", "a"], ["text field", "b"]]},
                                   {"line": [["number", "a"], ["text", " "], ["number", "a"]]},
                                   {"line": [["text field", f"f{n}"] if n % 2 == 0 else ["text", " "]
                                             for n in range(5)]}])  # three wildcards: cubic work
def test_a_recipe_files_item_shape_of_the_wrong_kind_is_a_miss_not_a_crash(shape: Any) -> None:
    records, why = read_lines(shape, LINES, TYPES)
    assert records is None and why == "its recorded item line is not a shape of fields and words"


def test_a_hostile_shape_on_a_documents_worth_of_long_lines_reads_in_bounded_time() -> None:
    # Lazy wildcards split by a space, on lines of spaces that never end as the shape does:
    # each line is tried every way; two wildcards and short lines keep that to a moment.
    shape = {"line": [["text field", "a"], ["text", " "], ["text field", "b"], ["text", " x"]]}
    started = time.monotonic()
    assert read_lines(shape, ["a " * 149] * 700, TYPES)[0] is None
    assert time.monotonic() - started < 5

"""A big page read in parts: cut between lines within the budget, each part read by a schema that
lets the other parts hold the rest, and what the parts give joined in page order."""

from __future__ import annotations

from goalbot.llm.extraction import merged, problems, relaxed, sections


def test_parts_keep_lines_whole_and_within_the_budget() -> None:
    text = "".join(f"Row {n}\tin stock\n" for n in range(1, 400))
    parts = sections(text, 1000)
    assert "".join(parts) == text and all(len(part) <= 1000 for part in parts)
    assert all(part.endswith("\n") for part in parts)  # no row is cut in two
    assert sections("short", 1000) == ["short"]
    assert sections("x" * 2500, 1000) == ["x" * 1000, "x" * 1000, "x" * 500]  # one huge line, cut as it must be


def test_a_part_may_lack_what_the_whole_needs_but_a_record_stays_strict() -> None:
    schema = {"type": "object", "required": ["total", "rows"], "properties": {
        "total": {"type": "number"},
        "rows": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["name"]}}}}
    part = relaxed(schema)
    assert problems({"rows": []}, part) == []
    assert problems({"rows": [{}]}, part) == ["rows/0: 'name' is a required property"]
    assert schema["required"] == ["total", "rows"]  # the whole's schema is untouched


def test_lists_are_joined_in_order_and_the_first_part_gives_a_single_value() -> None:
    assert merged([{"rows": [1, 2], "total": None}, None, {"rows": [3], "total": 9, "page": "b"}]) == \
        {"rows": [1, 2, 3], "total": 9, "page": "b"}
    assert merged([[1], [], [2, 3]]) == [1, 2, 3]
    assert merged([None, None]) is None

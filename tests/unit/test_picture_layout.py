"""A picture's words back in their rows and columns (picture_layout), and a list's places in them
(picture_places): a chart's value pairs with the label under its bar whatever the bar's height, a
table keeps its rows, a line that could pass for a record (a total) refuses a place, and a recipe's
hostile place reads as a message, never an exception."""

from __future__ import annotations

from goalbot.agents.picture_places import grid_places, read_grid_places
from goalbot.operators.ocr import Word
from goalbot.operators.picture_layout import COLUMN_INTRO, layout_lines

SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {
    "ticker": {"type": "string"}, "price": {"type": "number"}, "volume": {"type": "integer"}}}}}}


def _word(text: str, left: float, top: float, height: float = 12) -> Word:
    return Word(text, left, top, 7.5 * len(text), height)


def _chart(bars: list[tuple[str, str, float]]) -> list[Word]:
    """Labels on one baseline, each value above its bar at the bar's own height, a title, ticks."""
    words = [_word("Closing", 200, 4, 15), _word("prices", 262, 4, 15)]
    words += [_word(tick, 2, 250 - n * 50) for n, tick in enumerate(["0", "250", "500", "750"])]
    for n, (label, value, top) in enumerate(bars):
        x = 60 + n * 70
        words += [_word(label, x, 270), _word(value, x - 4, top)]
    return words


def test_a_charts_values_pair_with_the_labels_under_their_bars_whatever_their_heights() -> None:
    lines = layout_lines(_chart([("AAPL", "578.68", 100), ("MSFT", "783.88", 40), ("NVDA", "480.40", 104),
                                 ("META", "76.35", 240)]))
    columns = lines[lines.index(COLUMN_INTRO) + 1:]
    assert columns == ["578.68 | AAPL", "783.88 | MSFT", "480.40 | NVDA", "76.35 | META"]
    assert "Closing prices" in lines[:lines.index(COLUMN_INTRO)]


def test_a_tables_rows_keep_their_cells_in_order_and_words_close_together_are_one_cell() -> None:
    words = []
    for n, (name, price) in enumerate([("Ticker", "Price"), ("SK", "12.50"), ("Big", "7.00")]):
        words += [_word(name, 10, 10 + n * 30), _word(price, 200, 11 + n * 30)]
    words.append(_word("Hynix", 10 + 7.5 * 2 + 4, 10 + 30))  # "SK Hynix": a space apart
    assert layout_lines(words) == ["Ticker | Price", "SK Hynix | 12.50", "Big | 7.00"]


def test_a_list_in_a_pictures_rows_reads_again_on_another_days_lines_numbers_as_numbers() -> None:
    seen = "Ticker | Price | Volume\nAAPL | 145.06 | 1,312\nMSFT | 256.69 | 48,200"
    data = {"rows": [{"ticker": "AAPL", "price": 145.06, "volume": 1312},
                     {"ticker": "MSFT", "price": 256.69, "volume": 48200}]}
    place = grid_places(data, seen)
    assert place is not None
    later = "Ticker | Price | Volume\nNVDA | \u22127.82 | 903\nTSLA | 1,002.50 | 17\nORCL | 3.10 | 5"
    assert read_grid_places(place, later, SCHEMA) == ({"rows": [
        {"ticker": "NVDA", "price": -7.82, "volume": 903}, {"ticker": "TSLA", "price": 1002.5, "volume": 17},
        {"ticker": "ORCL", "price": 3.1, "volume": 5}]}, [])


def test_a_total_drawn_like_a_record_is_passed_over_by_its_name() -> None:
    data = {"rows": [{"ticker": "AAPL", "price": 145.06, "volume": 1312}]}
    place = grid_places(data, "AAPL | 145.06 | 1,312\nTotal | 145.06 | 1,312")
    assert place is not None
    assert read_grid_places(place, "NVDA | 7.82 | 903\nIBM | 1.50 | 4\nTOTAL | 9.32 | 907", SCHEMA) == (
        {"rows": [{"ticker": "NVDA", "price": 7.82, "volume": 903}, {"ticker": "IBM", "price": 1.5, "volume": 4}]}, [])


def test_a_line_that_would_pass_for_a_record_refuses_a_place() -> None:
    data = {"rows": [{"ticker": "AAPL", "price": 145.06, "volume": 1312}]}
    assert grid_places(data, "AAPL | 145.06 | 1,312\nAAPL | 145.06 | 1,312") is None  # which one is it?
    assert grid_places({"rows": [{"price": 145.06}]}, "145.06\n9.99") is None  # no name to pass the other by
    assert grid_places(data, "AAPL 145.06 1,312") is None  # no cells to keep a field in
    assert grid_places({"total": 5}, "Total | 5") is None  # no list: the labelled lines keep it


def test_a_hostile_recorded_place_reads_as_a_message() -> None:
    for place in ({"document": "ocr", "records": "rows", "fields": "ticker"},
                  {"document": "ocr", "records": ["rows"], "fields": {"ticker": {"cell": 0}}},
                  {"document": "ocr", "records": "rows", "fields": {"ticker": {"cell": "0"}}}):
        data, misses = read_grid_places(place, "AAPL | 1", SCHEMA)
        assert data is None and misses == ["the recorded picture cells name no fields"]
    data, misses = read_grid_places({"document": "ocr", "records": "rows", "fields": {"ticker": {"cell": 7}}},
                                    "AAPL | 1", SCHEMA)
    assert data is None and "no line" in misses[0]


def test_a_record_misread_among_the_others_is_a_miss_not_a_shorter_list() -> None:
    place = grid_places({"rows": [{"ticker": "AAPL", "price": 145.06, "volume": 1312},
                                  {"ticker": "MSFT", "price": 256.69, "volume": 48200}]},
                        "AAPL | 145.06 | 1,312\nMSFT | 256.69 | 48,200")
    assert place is not None
    data, misses = read_grid_places(place, "AAPL | 145.06 | 1,312\nMSFT | 2S6.69 | 48,200\nNVDA | 7.82 | 903", SCHEMA)
    assert data is None and "MSFT | 2S6.69 | 48,200" in misses[0]


def test_columns_found_by_their_headers_survive_a_redesign_that_swaps_two_columns_of_numbers() -> None:
    place = grid_places({"rows": [{"ticker": "AAPL", "price": 145.06, "volume": 1312}]},
                        "Ticker | Price | Volume\nAAPL | 145.06 | 1,312")
    assert place is not None and place["headers"] == {"ticker": "Ticker", "price": "Price", "volume": "Volume"}
    swapped = "Quotes today\nTicker | Volume | Price\nMSFT | 903 | 256.69"
    assert read_grid_places(place, swapped, SCHEMA) == (
        {"rows": [{"ticker": "MSFT", "price": 256.69, "volume": 903}]}, [])
    data, misses = read_grid_places(place, "Symbol | Last | Volume\nMSFT | 256.69 | 903", SCHEMA)
    assert data is None and "'Price'" in misses[0]  # renamed: the extractor reads it again

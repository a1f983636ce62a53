"""Where data is found again with no model, outside the page's DOM: in the JSON a page fetched, and
on the lines of a document (a PDF's text layer, or what OCR read). Found only where it cannot be
read wrong next time; a recipe file's places read as hostile input."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from goalbot.agents.documents import read_text_places, text_places
from goalbot.operators.browser.fetched import credential_name, names_credentials
from goalbot.operators.json_places import Fetched, NetworkPlace, find_place, read_place

BODY = {"meta": {"total": 3, "currency": "USD"},
        "series": [{"day": "2026-11-01", "close": 12.5}, {"day": "2026-11-02", "close": 13.0},
                   {"day": "2026-11-03", "close": 11.25}]}
PRICES = [Fetched("http://shop.test/api/prices?from=1", BODY)]


def test_a_list_is_found_whole_and_read_again_from_the_next_answer() -> None:
    data = {"prices": [{"date": d["day"], "price": f"${d['close']:.2f}"} for d in BODY["series"]]}
    found = find_place(data, PRICES)
    assert found is not None
    place, read = found
    assert place.words() == "GET /api/prices?from=…"
    assert read == {"prices": [{"date": d["day"], "price": d["close"]} for d in BODY["series"]]}  # as the JSON types it
    later = [Fetched("http://shop.test/api/prices?from=2", {"series": [{"day": "2026-12-01", "close": 9}]})]
    assert read_place(place, later) == ({"prices": [{"date": "2026-12-01", "price": 9}]}, [])


def test_the_first_rows_of_a_longer_list_and_a_value_written_twice_keep_no_place() -> None:
    first_two = {"prices": [{"date": d["day"], "price": d["close"]} for d in BODY["series"][:2]]}
    assert find_place(first_two, PRICES) is None
    twice = [Fetched("http://shop.test/api/a", {"a": {"n": 7}, "b": {"n": 7}})]
    assert find_place({"n": 7}, twice) is None
    assert find_place({"total": 3}, PRICES) is not None  # once: kept


def test_a_place_that_no_longer_reads_says_why() -> None:
    place, _ = find_place({"currency": "usd"}, PRICES) or (None, None)
    assert place is not None
    assert read_place(place, []) == (None, ["the page fetched nothing from GET /api/prices?from=…"])
    moved = [Fetched("http://shop.test/api/prices?from=1", {"currency": "USD"})]
    assert read_place(place, moved)[1] == ["GET /api/prices?from=… no longer holds the data where it did"]


def test_a_recipe_files_network_place_is_hostile_input() -> None:
    with pytest.raises(ValidationError):
        NetworkPlace.model_validate({"path": "/api/x\x1b[2J", "node": {}})  # a terminal escape in a word
    deep: dict[str, object] = {}
    for _ in range(12):
        deep = {"each": deep}
    with pytest.raises(ValidationError):
        NetworkPlace.model_validate({"path": "/api/x", "node": deep})


@pytest.mark.parametrize(("name", "credential"), [
    ("Authorization", True), ("X-Api-Key", True), ("accessToken", True), ("session_id", True), ("Cookie", True),
    ("x-csrf-token", True), ("author", False), ("keyboard", False), ("sessions", False), ("accept", False)])
def test_a_name_says_a_credential_as_a_whole_word(name: str, credential: bool) -> None:
    assert credential_name(name) is credential


def test_a_body_that_names_a_credential_at_any_depth_is_not_kept() -> None:
    assert names_credentials({"rows": [{"id": 1, "meta": {"refresh_token": "x"}}]})
    assert not names_credentials({"rows": [{"id": 1, "author": "Kim"}]})


INVOICE = "ACME Supplies\nInvoice no. A-1042\nDate: 2026-11-20\nTotal due: $1,234.50 USD\n"
SCHEMA = {"type": "object", "properties": {"number": {"type": "string"}, "total": {"type": "number"}}}


def test_a_documents_values_are_kept_by_their_line_and_read_from_the_next() -> None:
    place = text_places({"number": "A-1042", "total": 1234.5}, INVOICE)
    assert place == {"document": "pdf", "fields": {"number": {"after": "Invoice no.", "before": ""},
                                                   "total": {"after": "Total due: $", "before": "USD"}}}
    following = INVOICE.replace("A-1042", "A-1107").replace("1,234.50", "87.25")
    assert read_text_places(place, following, SCHEMA) == ({"number": "A-1107", "total": 87.25}, [])
    assert read_text_places(place, "Invoice no. A-9\n", SCHEMA)[1] == ["total: no line begins 'Total due: $'"]


def test_a_value_with_no_label_or_on_two_lines_keeps_no_place() -> None:
    assert text_places({"total": 1234.5}, "1,234.50\n") is None
    assert text_places({"date": "2026-11-20"}, "Date: 2026-11-20\nDue: 2026-11-20\n") is None


@pytest.mark.parametrize("place", [{"document": "pdf", "fields": {"total": 5}},
                                   {"document": "pdf", "fields": ["total"]}, {"document": "pdf"}])
def test_a_recipe_files_document_place_of_the_wrong_shape_is_a_miss_not_a_crash(place: dict[str, object]) -> None:
    data, misses = read_text_places(place, INVOICE, SCHEMA)
    assert misses and not data

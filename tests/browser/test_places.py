"""Where extracted data sits on a page, found as structure (not coordinates), and the data read back
from those places with no model: the same values today, today's values after the page changed, and
an honest miss when a page writes a value in a way it was never seen written."""

from __future__ import annotations

from typing import Any

from goalbot.llm.extraction import problems
from goalbot.operators.browser.operator import BrowserOperator

CARDS = """<!doctype html><title>Kettles</title><main>
<div class="k"><h2>Steel kettle</h2><span>Rating 4.5</span><b>€ 39,00</b><em>In stock</em><button>Add</button></div>
<div class="k"><h2>Glass kettle</h2><span>Rating 4.8</span><b>€ 59,00</b><em>Sold out</em><button>Add</button></div>
<div class="k"><h2>Travel kettle</h2><span>Rating 3.9</span><b>€ 19,00</b><em>In stock</em><button>Add</button></div>
</main>"""
KETTLES = [{"name": "Steel kettle", "rating": 4.5, "in_stock": True},
           {"name": "Glass kettle", "rating": 4.8, "in_stock": False},
           {"name": "Travel kettle", "rating": 3.9, "in_stock": True}]
INVOICE = """<!doctype html><title>Invoice</title><div id="inv"><p>Invoice no. INV-2207</p>
<table><tr><td>Subtotal</td><td>$1,180.00</td></tr><tr><td>Total due</td><td>$1,298.00</td></tr></table></div>"""


async def _located(browser: BrowserOperator, html: str, data: Any) -> dict[str, Any]:
    await browser.page.set_content(html)
    await browser.observe(screenshot=False)
    found = await browser.places_of(data, None)
    assert found is not None, "no place found"
    return found.place


async def test_cards_are_rows_and_a_word_stands_for_true_or_false(browser: BrowserOperator) -> None:
    place = await _located(browser, CARDS, {"kettles": KETTLES})
    rows = place["fields"]["kettles"]
    assert rows["each"].endswith("div") and rows["fields"]["in_stock"]["texts"] == {"In stock": True, "Sold out": False}
    assert rows["fields"]["rating"]["as"] == "number"  # "Rating 4.5" holds one number
    back = await browser.read_places(place)
    assert back.misses == [] and back.data == {"kettles": KETTLES}
    # The shop changes its prices and stock: the same places read today's values.
    await browser.page.evaluate("""() => {
        document.querySelectorAll('em')[1].textContent = 'In stock';
        document.querySelectorAll('span')[2].textContent = 'Rating 4.1'; }""")
    today = (await browser.read_places(place)).data["kettles"]
    assert today[1]["in_stock"] is True and today[2]["rating"] == 4.1
    # A word never seen when it was recorded is a miss, not a guess.
    await browser.page.evaluate("() => { document.querySelectorAll('em')[0].textContent = 'Back soon'; }")
    missed = await browser.read_places(place)
    assert missed.misses == ['kettles/0/in_stock: "Back soon" was not seen when the recipe was recorded']
    # The element a person clicks to take a record: the button inside its row.
    buttons = [n for n, e in (await browser.observe(screenshot=False)).elements.items() if e.name == "Add"]
    assert len(buttons) == 3 and (await browser.items(rows["each"], 2))[:1] == [buttons[2]]


async def test_single_values_are_found_by_where_they_are_written(browser: BrowserOperator) -> None:
    data = {"invoice": "INV-2207", "total": 1298.0}
    place = await _located(browser, INVOICE, data)
    assert place["fields"]["invoice"] == {"at": "#inv > p:nth-of-type(1)", "as": "part", "before": "Invoice no. ",
                                          "after": ""}
    schema = {"type": "object", "required": ["invoice", "total"],
              "properties": {"invoice": {"type": "string"}, "total": {"type": "number"}}}
    back = await browser.read_places(place)
    assert back.misses == [] and back.data == data and problems(back.data, schema) == []


async def test_data_the_page_does_not_show_has_no_place(browser: BrowserOperator) -> None:
    await browser.page.set_content(INVOICE)
    await browser.observe(screenshot=False)
    assert await browser.places_of({"total": 999.0}, None) is None
    assert await browser.places_of({"lines": [{"what": "Subtotal", "amount": 1180.0},
                                              {"what": "Shipping", "amount": 5.0}]}, None) is None


async def test_rows_recorded_that_match_nothing_now_are_a_miss_not_an_empty_list(browser: BrowserOperator) -> None:
    place = await _located(browser, CARDS, {"kettles": KETTLES})
    # The same shop redrawn as a table: the recorded card rows match nothing. An empty list would
    # fit a schema with no minimum, and the rerun would go on with no candidate at all.
    await browser.page.set_content("""<!doctype html><table><tr><td>Steel kettle</td><td>Rating 4.5</td>
        <td>In stock</td></tr></table>""")
    back = await browser.read_places(place)
    assert back.misses and "match nothing on the page now" in back.misses[0], back

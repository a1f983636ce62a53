"""A value a page writes in several spots (a data browser's count, in its facet and its heading):
the steadiest spot is kept, so a rerun reads today's value with no model; spots as steady as each
other are all kept and must agree, and when they do not the read says so rather than pick one."""

from __future__ import annotations

from typing import Any

from goalbot.operators.browser.operator import BrowserOperator


def facets(country: str, count: int, others: list[tuple[str, int]]) -> str:
    """A Datasette-like table page filtered by country: the count in the heading, in the selected
    facet and (as counts do) by each other facet value, sorted by count as facets are."""
    listed = sorted([(country, count), *others], key=lambda pair: -pair[1])
    items = "".join(f'<li><a href="?country={name}">{name}</a> {n}</li>' for name, n in listed)
    rows = "".join(f"<tr><td>{n}</td><td>{country}</td></tr>" for n in range(1, count + 1))
    return (f"<!doctype html><title>cities</title><h1>cities</h1>"
            f'<h3>{count} rows where country = "{country}"</h3>'
            f'<div class="facets"><p><strong>country</strong></p><ul>{items}</ul></div>'
            f"<table><tr><th>id</th><th>country</th></tr>{rows}</table>")


async def _place(browser: BrowserOperator, html: str, data: Any) -> dict[str, Any]:
    await browser.page.set_content(html)
    await browser.observe(screenshot=False)
    found = await browser.places_of(data, None)
    assert found is not None, "no place found"
    return found.place


async def test_a_count_in_a_facet_and_a_heading_is_kept_by_the_heading(browser: BrowserOperator) -> None:
    place = await _place(browser, facets("Spain", 12, [("France", 7), ("Peru", 3)]), {"rows": 12})
    assert place["fields"]["rows"] == {"at": "body > h3:nth-of-type(1)", "as": "number"}, place
    # Another country's page: the facets are in another order, the heading says today's count.
    await browser.page.set_content(facets("Peru", 3, [("Spain", 12), ("France", 7)]))
    back = await browser.read_places(place)
    assert back.misses == [] and back.data == {"rows": 3}


TWICE = """<!doctype html><title>Report</title><main>
<section><h2>Open tickets: {a}</h2></section><aside><h2>Open tickets: {b}</h2></aside></main>"""


async def test_spots_as_steady_as_each_other_are_all_kept_and_must_agree(browser: BrowserOperator) -> None:
    place = await _place(browser, TWICE.format(a=12, b=12), {"open": 12})
    assert [spot["at"] for spot in place["fields"]["open"]["any"]] == [
        "body > main:nth-of-type(1) > section:nth-of-type(1) > h2:nth-of-type(1)",
        "body > main:nth-of-type(1) > aside:nth-of-type(1) > h2:nth-of-type(1)"]
    await browser.page.set_content(TWICE.format(a=9, b=9))
    assert (await browser.read_places(place)).data == {"open": 9}
    # One spot gone: the other still reads.
    await browser.page.set_content(TWICE.format(a=8, b=8).replace("<aside>", "<nav>").replace("</aside>", "</nav>"))
    assert (await browser.read_places(place)).data == {"open": 8}
    # They disagree: said, with both, and no value read.
    await browser.page.set_content(TWICE.format(a=9, b=4))
    back = await browser.read_places(place)
    assert back.data == {} and back.misses == [
        'open: the places it was written in disagree now: body > main:nth-of-type(1) > section:nth-of-type(1) > '
        'h2:nth-of-type(1) says 9; body > main:nth-of-type(1) > aside:nth-of-type(1) > h2:nth-of-type(1) says 4']
    await browser.page.set_content("<!doctype html><p>nothing here</p>")
    assert (await browser.read_places(place)).misses == ["open: none of the places it was written in is on the page now"]


async def test_a_value_written_alike_everywhere_keeps_no_place(browser: BrowserOperator) -> None:
    cells = "".join(f"<p>Seats: 5</p>" for _ in range(6))
    await browser.page.set_content(f"<!doctype html><main>{cells}</main>")
    await browser.observe(screenshot=False)
    assert await browser.places_of({"seats": 5}, None) is None


async def test_a_spot_labelled_by_the_fields_name_comes_before_a_heading_that_holds_the_same_number(
        browser: BrowserOperator) -> None:
    page = ("<!doctype html><main><h2>{hits} results</h2><table><tr><td>Item</td><td>Walnut shelf</td></tr>"
            "<tr><td>Price</td><td>${price}</td></tr></table></main>")
    place = await _place(browser, page.format(hits=12, price=12), {"price": 12})
    assert place["fields"]["price"]["at"].endswith("tr:nth-of-type(2) > td:nth-of-type(2)"), place
    await browser.page.set_content(page.format(hits=15, price=9))
    assert (await browser.read_places(place)).data == {"price": 9}

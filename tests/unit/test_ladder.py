"""The ladder a rerun finds a recorded element by, with no model: the cached CSS path when it still
names the same control, a unique strict match, the healing memory, then scored re-finding that
takes a candidate only when it is clearly the one — two alike and it asks instead of guessing."""

from __future__ import annotations

from goalbot.operators.base import Element, Observation
from goalbot.payloads import Rung
from goalbot.recipes.locate import locate, refind
from goalbot.recipes.model import Evidence


class Page:
    """What the ladder asks a page besides its observation: which listed element a CSS selector
    names now (here, a table of what the page's DOM would answer)."""

    def __init__(self, selectors: dict[str, int] | None = None) -> None:
        self.selectors = selectors or {}
        self.asked: list[str] = []

    async def find(self, selector: str) -> int | None:
        self.asked.append(selector)
        return self.selectors.get(selector)


def _page(*elements: Element) -> Observation:
    return Observation(url="http://shop.test/cart", title="Cart", items=list(elements))


SAVE = Evidence(role="button", name="Save", css="form > button.primary", box=(100, 200, 80, 30))


async def test_the_cached_path_is_taken_when_it_still_names_the_same_control() -> None:
    seen = _page(Element(index=3, role="button", name="Save"), Element(index=4, role="button", name="Cancel"))
    found = await locate(SAVE, seen, Page({"form > button.primary": 3}))
    assert found is not None and (found.index, found.rung) == (3, Rung.CACHED)


async def test_a_cached_path_that_now_names_another_control_is_passed_over() -> None:
    # The redesign moved the primary class to Delete: the path is stale, the name still says Save.
    seen = _page(Element(index=3, role="button", name="Delete account"), Element(index=7, role="button", name="Save"))
    found = await locate(SAVE, seen, Page({"form > button.primary": 3}))
    assert found is not None and (found.index, found.rung) == (7, Rung.STRICT)


async def test_strict_takes_the_test_id_first_and_only_a_unique_name() -> None:
    by_test_id = Evidence(role="button", name="Buy", test_id="buy-now")
    seen = _page(Element(index=1, role="button", name="Buy"), Element(index=2, role="button", name="Buy"))
    found = await locate(by_test_id, seen, Page({'[data-testid="buy-now"]': 2}))
    assert found is not None and (found.index, found.rung) == (2, Rung.STRICT)
    # Two buttons named Buy and nothing else to tell them apart: no strict match, and no guess.
    assert await locate(Evidence(role="button", name="Buy"), seen, Page()) is None


async def test_a_button_drawn_as_a_link_is_the_same_control() -> None:
    seen = _page(Element(index=5, role="link", name="Save"), Element(index=6, role="textbox", name="Save"))
    found = await locate(Evidence(role="button", name="Save"), seen, Page())
    assert found is not None and (found.index, found.rung) == (5, Rung.STRICT)


async def test_the_healing_memory_is_tried_before_scoring() -> None:
    seen = _page(Element(index=8, role="button", name="Store changes"), Element(index=9, role="button", name="Back"))
    healed = Evidence(role="button", name="Store changes")
    found = await locate(Evidence(role="button", name="Keep"), seen, Page(), healed=healed)
    assert found is not None and (found.index, found.rung) == (8, Rung.MEMORY)


def test_refinding_takes_a_clear_winner_and_refuses_a_close_call() -> None:
    clear = _page(Element(index=1, role="button", name="Save changes", box=(100, 200, 80, 30)),
                  Element(index=2, role="link", name="Help", box=(900, 20, 40, 20)))
    found = refind(Evidence(role="button", name="Save", box=(100, 200, 80, 30)), clear)
    assert found is not None and (found.index, found.rung) == (1, Rung.REFIND)
    close = _page(Element(index=1, role="button", name="Save draft", box=(100, 200, 80, 30)),
                  Element(index=2, role="button", name="Save copy", box=(100, 240, 80, 30)))
    assert refind(Evidence(role="button", name="Save", box=(100, 220, 80, 30)), close) is None


def test_nothing_alike_is_no_match() -> None:
    seen = _page(Element(index=1, role="checkbox", name="Remember me"))
    assert refind(Evidence(role="button", name="Pay now"), seen) is None


async def test_a_name_holding_a_value_is_matched_exactly_on_every_rung() -> None:
    # Recorded on "Oak Desk" at the first row; today the first row is a look-alike of the value.
    link = Evidence(role="link", name="Walnut Shelf", css="li:nth-child(1) > a", box=(10, 10, 120, 20))
    seen = _page(Element(index=1, role="link", name="Walnut Shelf Bracket"),
                 Element(index=2, role="link", name="Walnut Shelf"))
    found = await locate(link, seen, Page({"li:nth-child(1) > a": 1}), exact=["Walnut Shelf"])
    assert found is not None and found.index == 2 and found.rung is Rung.STRICT
    only_alike = _page(Element(index=1, role="link", name="Walnut Shelf Bracket"))
    assert await locate(link, only_alike, Page({"li:nth-child(1) > a": 1}), exact=["Walnut Shelf"]) is None
    # The same page with no value in the name: a renamed control is still found as alike.
    assert await locate(link, only_alike, Page({"li:nth-child(1) > a": 1})) is not None

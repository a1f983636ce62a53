"""Long lists and dropdowns as the navigator reads them: a list box shows the options in its own
view and scrolling it moves through them, long option names stay told apart, an option out of
view is still chosen by name, and a dropdown a page draws over a hidden select reads as that
select (MiniWoB++'s form-sequence-3)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kit import open_page
from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.eval.miniwob_site import MiniwobSite
from goalbot.operators.base import Element, Observation
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite

FAR_DOWN = "Sites Framework of This Installation | site alias | Can view site alias"


def named(look: Observation, role: str, name: str) -> Element:
    """The element of `role` named `name`, as a model reading the look would pick it."""
    found = [e for e in look.elements.values() if e.role == role and e.name == name]
    assert len(found) == 1, [e.line() for e in look.elements.values()]
    return found[0]


async def scroll_until(browser: BrowserOperator, role: str, name: str, seen: str, most: int = 12) -> Element:
    """Scrolls the list down a default step at a time, as a person pages through, until the look
    shows `seen` in it; the list as it then reads."""
    for _ in range(most):
        look = await browser.observe()
        listed = named(look, role, name)
        if seen in look.render():
            return listed
        assert (await browser.execute(A.Scroll(index=listed.index, direction=A.Direction.DOWN))).ok
    raise AssertionError(f"{seen!r} never showed in {name!r} after {most} scrolls")


async def test_a_long_list_box_shows_its_view_and_scrolling_moves_through_it(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("long-listbox"))
    perms = named(await browser.observe(), "listbox", "Permissions")
    assert perms.options is not None and perms.hidden is not None
    # The first ten are in the list's view, two more past its edge; the other 24 are counted below.
    assert perms.options[0] == "Authentication and Authorization | group | Can add group"
    assert len(perms.options) == 12 and (perms.hidden.above, perms.hidden.below) == (0, 24)
    assert "(24 more below inside)" in perms.line() and "… 16 more" not in perms.line()
    # Names past 60 characters keep the words that tell them apart.
    assert "Authentication…| permission | Can change permission" in perms.options
    assert len(set(perms.options)) == len(perms.options)

    perms = await scroll_until(browser, "listbox", "Permissions", "Can view site alias")
    assert perms.options is not None and perms.hidden is not None
    assert "Sites Framework…| site alias | Can view site alias" in perms.options
    assert perms.hidden.above > 0 and perms.hidden.below == 0
    assert "Authentication and Authorization | group | Can add group" not in perms.options
    every = set(perms.options)
    assert len(every) == len(perms.options)

    assert (await browser.execute(A.Scroll(index=perms.index, direction=A.Direction.UP))).ok
    back = named(await browser.observe(), "listbox", "Permissions")
    assert back.options != perms.options and back.hidden is not None and back.hidden.below > 0


async def test_an_option_out_of_view_is_chosen_by_its_text_its_value_or_its_shortened_name(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("long-listbox"))
    perms = named(await browser.observe(), "listbox", "Permissions")
    assert FAR_DOWN not in perms.line()
    full = await browser.execute(A.SelectOption(index=perms.index, option=FAR_DOWN))
    assert full.ok, full.message
    by_value = await browser.execute(A.SelectOption(index=perms.index, option="sessions.change_session",
                                                    keep_others=True))
    assert by_value.ok, by_value.message
    # The name the look gave a long option, copied as a model copies it.
    shown = named(await browser.observe(), "listbox", "Permissions")
    assert shown.options is not None
    short = next(o for o in shown.options if o.startswith("Sites Framework…") and "Can add site alias" in o)
    assert (await browser.execute(A.SelectOption(index=shown.index, option=short, keep_others=True))).ok
    chosen = await browser.page.evaluate("Array.from(document.getElementById('perms').selectedOptions, o => o.value)")
    assert chosen == ["sessions.change_session", "sites.add_sitealias", "sites.view_sitealias"]
    chosen_line = named(await browser.observe(), "listbox", "Permissions").line()
    assert "Can view site alias ✓" in chosen_line and "Can add site alias ✓" in chosen_line

    # A name no option has: what comes nearest is said, wherever it is in the list.
    missing = await browser.execute(A.SelectOption(index=perms.index, option="Can view site aliases"))
    assert missing.outcome is Outcome.TARGET_NOT_FOUND
    assert "Sites Framework of This Installation | site alias | Can view site alias" in missing.message


async def test_an_aria_list_that_scrolls_and_one_that_loads_more_as_it_is_scrolled(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("long-listbox"))
    countries = named(await browser.observe(), "listbox", "Country")
    assert "Slovenia" not in (await browser.observe()).render()
    picked = await browser.execute(A.SelectOption(index=countries.index, option="Slovenia"))
    assert picked.ok, picked.message
    assert await browser.page.inner_text("#chosen") == "country: Slovenia"

    # The ticket list has 15 at first and draws 15 more each time its end is reached.
    await scroll_until(browser, "listbox", "Ticket", '"Ticket #40"')
    ticket = named(await browser.observe(), "option", "Ticket #40")
    assert (await browser.execute(A.Click(index=ticket.index))).ok
    assert await browser.page.inner_text("#chosen") == "ticket: Ticket #40"


@pytest.fixture
def miniwob() -> Iterator[MiniwobSite]:
    with MiniwobSite() as site:
        yield site


@pytest.mark.parametrize("seed", [0, 1])
async def test_a_dropdown_drawn_over_a_hidden_select_reads_and_is_chosen_as_that_select(
        browser: BrowserOperator, miniwob: MiniwobSite, seed: int) -> None:
    """form-sequence-3 hides its select and draws selectric's dropdown in its place; the look read
    it as one clickable with every option run together in its name."""
    await open_page(browser, miniwob.page("form-sequence-3", seed))
    query = await browser.page.inner_text("#query")
    wanted = query.removeprefix("Choose ").split(" from the dropdown")[0]
    look = await browser.observe()
    [dropdown] = [e for e in look.elements.values() if e.role == "combobox"]
    assert dropdown.options == ["", "5ft 9in", "5ft 10in", "5ft 11in", "6 ft", "6ft 1in", "6ft 2in"]
    assert not [e for e in look.elements.values() if "5ft 9in 5ft 10in" in e.name], look.render()
    chosen = await browser.execute(A.SelectOption(index=dropdown.index, option=wanted))
    assert chosen.ok, chosen.message
    assert await browser.page.evaluate("document.getElementById('dropdown').value") == wanted
    # Chosen through the drawn list, as a person does: the page's own face of it shows the choice.
    assert await browser.page.inner_text(".selectric .label") == wanted
    again = named(await browser.observe(), "combobox", dropdown.name)
    assert again.value == wanted


async def test_a_drawn_menu_beside_its_hidden_select_lists_the_options_and_a_row_stays_a_row(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    """As jQuery UI's selectmenu: the select hidden, a combobox just after it, the menu at the end
    of the body. A row holding a hidden select and its own button is not taken for a dropdown."""
    text = await open_page(browser, hardsite.page("drawn-select"))
    look = await browser.observe()
    size = named(look, "combobox", "Size")
    assert size.options == ["Pick a size", "Small", "Medium", "Large", "Extra large"], text
    assert named(look, "button", "Edit wrap") and not [e for e in look.elements.values() if e.role == "combobox"
                                                       and e is not size], text
    chosen = await browser.execute(A.SelectOption(index=size.index, option="Large"))
    assert chosen.ok, chosen.message
    assert await browser.page.evaluate("document.getElementById('size').value") == "l"
    assert await browser.page.inner_text("#size-label") == "Large"  # through the page's own menu
    assert named(await browser.observe(), "combobox", "Size").value == "Large"
    missing = await browser.execute(A.SelectOption(index=size.index, option="Extra huge"))
    assert missing.outcome is Outcome.TARGET_NOT_FOUND and "Extra large" in missing.message

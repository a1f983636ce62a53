"""Typing as a keyboard types (a filter that listens to keyup filters), names a person reads
(a picture's alt text in a label, the label of the field a drawn widget stands in for, the
caption over an editor, a framed editor's label), and a secret field decided by the field focused,
inside frames too: a framed editor is no password field, a framed password field is one."""

from __future__ import annotations

import pytest

from kit import open_page
from goalbot import actions as A
from goalbot.operators.base import Observation
from goalbot.operators.browser.keyboard import KEYED_TAIL
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite


def index_of(observation: Observation, name: str, role: str | None = None) -> int:
    """The element a model reading the look would pick: by its role and visible name."""
    found = [e.index for e in observation.elements.values() if e.name == name and role in (None, e.role)]
    assert found, f"no {role or 'element'} named {name!r} in:\n{observation.render()}"
    return found[0]


async def available(browser: BrowserOperator) -> list[str]:
    return await browser.page.eval_on_selector_all("#id_permissions_from option", "os => os.map(o => o.text)")


async def key_events(browser: BrowserOperator) -> dict[str, int]:
    return await browser.page.evaluate("() => window.keyEvents")


async def filter_box(browser: BrowserOperator, hardsite: HardSite) -> int:
    await open_page(browser, hardsite.page("keyup-filter"))
    look = await browser.observe(screenshot=False)
    return next(e.index for e in look.elements.values() if e.role == "textbox" and "Filter" in (e.name, e.placeholder))


async def test_typing_into_a_filter_that_listens_to_keyup_filters_the_list(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    box = await filter_box(browser, hardsite)
    typed = await browser.execute(A.Type(index=box, text="change user"))
    assert typed.ok, typed.message
    assert await available(browser) == ["auth | user | Can change user"]
    # Each character a key of its own, pressed and let go, as a person types.
    assert await key_events(browser) == {"keydown": 11, "keypress": 11, "keyup": 11, "input": 11}
    look = (await browser.observe(screenshot=False)).render()
    assert 'options=["auth | user | Can change user"]' in look, look


async def test_korean_arrives_whole_with_a_key_event_for_each_character(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    box = await filter_box(browser, hardsite)
    assert (await browser.execute(A.Type(index=box, text="Add 김치"))).ok
    assert await browser.page.input_value("#id_permissions_input") == "Add 김치"
    assert await available(browser) == ["menu | dish | Can add 김치찌개"]
    assert (await key_events(browser))["keyup"] == len("Add 김치")


async def test_typing_over_what_a_field_holds_replaces_it_and_a_tab_stays_in_the_field(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    box = await filter_box(browser, hardsite)
    assert (await browser.execute(A.Type(index=box, text="group"))).ok
    assert (await browser.execute(A.Type(index=box, text="user\tview"))).ok
    assert await browser.page.input_value("#id_permissions_input") == "user\tview"
    assert await available(browser) == ["auth | user | Can view user"]
    assert await browser.page.evaluate("() => document.activeElement.id") == "id_permissions_input"
    assert (await browser.execute(A.Type(index=box, text=""))).ok  # nothing typed over it: emptied
    assert await browser.page.input_value("#id_permissions_input") == ""
    assert len(await available(browser)) == 9


async def test_text_added_to_a_field_that_has_the_keys_goes_where_its_caret_is(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    box = await filter_box(browser, hardsite)
    assert (await browser.execute(A.Type(index=box, text="user"))).ok
    # The page puts the caret at the start, as a toolbar button puts it between its marks.
    await browser.page.evaluate("() => document.getElementById('id_permissions_input').setSelectionRange(0, 0)")
    assert (await browser.execute(A.Type(index=box, text="view ", clear=False))).ok
    assert await browser.page.input_value("#id_permissions_input") == "view user"
    assert await available(browser) == ["auth | user | Can view user"]


async def test_long_text_is_typed_whole_and_its_end_as_keys(browser: BrowserOperator, hardsite: HardSite) -> None:
    box = await filter_box(browser, hardsite)
    text = "can " * 750 + "add 된장"
    assert (await browser.execute(A.Type(index=box, text=text))).ok
    assert await browser.page.input_value("#id_permissions_input") == text
    # The page read the whole text on the keys that ended it: the filter matched what was typed.
    assert await available(browser) == ["menu | dish | Can add 된장찌개"]
    assert (await key_events(browser))["keyup"] == KEYED_TAIL


async def test_korean_typed_into_a_field_of_a_frame_of_another_origin(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    await open_page(browser, hardsite.page("frames"))
    look = await browser.observe(screenshot=False)
    payment = [e.index for e in look.elements.values() if e.name == "Code"][1]
    assert (await browser.execute(A.Type(index=payment, text="쿠폰 KIMCHI"))).ok
    frame = next(f for f in browser.page.frames if f.url.startswith(hardsite.other))
    assert await frame.input_value("#code") == "쿠폰 KIMCHI"


async def test_fields_are_named_by_what_a_person_reads(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("named-by-label"))
    look = await browser.observe(screenshot=False)
    rendered = look.render()
    assert "quick search" not in rendered, rendered  # an HTML comment is read by nobody
    index_of(look, "Search", "textbox")
    index_of(look, "Country", "combobox")
    description = index_of(look, "Description", "textbox")
    index_of(look, "Comment", "textbox")
    assert (await browser.execute(A.Type(index=description, text="Spicy 김치"))).ok
    assert await browser.page.inner_text(".editor-content >> nth=0") == "Spicy 김치"


@pytest.mark.parametrize("mode", ["", "?design"], ids=["contenteditable-body", "design-mode"])
async def test_a_framed_editor_is_named_by_its_label_and_typed_into(
    browser: BrowserOperator, hardsite: HardSite, mode: str
) -> None:
    await open_page(browser, hardsite.page("framed-editor") + mode)
    look = await browser.observe(screenshot=False)
    editor = index_of(look, "Page text", "textbox")
    assert "focused" not in look.elements[editor].states  # its body is active, the keys are elsewhere
    assert (await browser.execute(A.Type(index=editor, text="Hello 위키"))).ok
    frame = browser.page.frames[1]
    assert await frame.inner_text("body") == "Hello 위키"
    assert not await browser.is_secret_field(editor)


@pytest.mark.parametrize("mode", ["?focus", "?focus&design"], ids=["contenteditable-body", "design-mode"])
async def test_typing_where_the_focus_is_in_a_framed_editor_is_no_secret(
    browser: BrowserOperator, hardsite: HardSite, mode: str
) -> None:
    await open_page(browser, hardsite.page("framed-editor") + mode)
    look = await browser.observe(screenshot=False)
    assert "focused" in look.elements[index_of(look, "Page text", "textbox")].states
    assert not await browser.is_secret_field(None)
    assert (await browser.execute(A.Type(text="Typed where the caret is"))).ok
    assert await browser.page.frames[1].inner_text("body") == "Typed where the caret is"


async def test_a_password_field_in_a_frame_of_another_origin_is_secret(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    await open_page(browser, hardsite.page("framed-signin"))
    look = await browser.observe(screenshot=False)
    password, email = index_of(look, "Password", "textbox"), index_of(look, "Email", "textbox")
    assert await browser.is_secret_field(password) and not await browser.is_secret_field(email)
    assert (await browser.execute(A.Click(index=password))).ok
    assert await browser.is_secret_field(None)
    assert (await browser.execute(A.Click(index=email))).ok
    assert not await browser.is_secret_field(None)

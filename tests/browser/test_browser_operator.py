"""The browser operator against real Chromium: what it sees, and honest results of actions."""

from __future__ import annotations

from typing import AsyncIterator
from urllib.parse import quote

import pytest

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.operator import BrowserOperator
from goalbot.operators.browser.options import BrowserOptions

FORM = """<!doctype html><title>Form</title>
<h1>Order</h1><p>Choose carefully.</p>
<label for="size">Size</label>
<select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<input id="code" maxlength="3" aria-label="Code">
<input type="checkbox" id="gift" checked><label for="gift">Gift wrap</label>
<button disabled>Pay</button>
<div style="height: 3000px"></div><a href="#end">End</a>"""


def page(html: str) -> str:
    return "data:text/html," + quote(html)


@pytest.fixture
async def browser() -> AsyncIterator[BrowserOperator]:
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start(page(FORM))
    yield operator
    await operator.close()


async def test_observation_lists_elements_with_role_name_value_and_state(browser: BrowserOperator) -> None:
    text = (await browser.observe()).render()
    assert "Title: Form" in text
    assert "# Order" in text and "Choose carefully." in text
    assert '[1] combobox "Size" value="Small" options=["Small", "Large"]' in text
    assert '[2] textbox "Code"' in text
    assert '[3] checkbox "Gift wrap" checked' in text
    assert '[4] button "Pay" disabled' in text
    assert "px more below" in text


async def test_login_page_of_the_demo_site(site) -> None:
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start(f"{site.url}/login")
    try:
        observation = await operator.observe()
        await operator.execute(A.Type(index=2, text="hunter2"))
        after = (await operator.observe()).render()
    finally:
        await operator.close()
    assert observation.screenshot and observation.screenshot[:2] == b"\xff\xd8"
    assert '[1] textbox type=email "Email"' in observation.render()
    assert '[2] textbox type=password "Password"' in observation.render()
    assert "hunter2" not in after and 'value="•••••••"' in after


async def test_select_option_by_text_or_value(browser: BrowserOperator) -> None:
    await browser.observe()
    assert (await browser.execute(A.SelectOption(index=1, option="Large"))).ok
    assert 'value="Large"' in (await browser.observe()).render()
    assert (await browser.execute(A.SelectOption(index=1, option="s"))).ok
    missing = await browser.execute(A.SelectOption(index=1, option="Huge"))
    assert missing.outcome is Outcome.TARGET_NOT_FOUND and "no option 'Huge'" in missing.message
    wrong = await browser.execute(A.SelectOption(index=2, option="Large"))
    assert wrong.outcome is Outcome.NOT_ACTIONABLE


async def test_typing_that_the_field_refuses_is_no_effect(browser: BrowserOperator) -> None:
    await browser.observe()
    result = await browser.execute(A.Type(index=2, text="ABCDEF"))
    assert result.outcome is Outcome.NO_EFFECT
    assert (await browser.execute(A.Type(index=2, text="ABC"))).ok
    # Refused at once, not after waiting for the field to be enabled again.
    await browser.page.evaluate("() => { document.getElementById('code').disabled = true; }")
    disabled = await browser.execute(A.Type(index=2, text="XYZ"))
    assert disabled.outcome is Outcome.NOT_ACTIONABLE and "cannot type into [2]: it is disabled" in disabled.message
    await browser.page.evaluate("() => document.getElementById('code').remove()")
    assert (await browser.execute(A.Type(index=2, text="XYZ"))).outcome is Outcome.STALE_INDEX


async def test_scroll_reports_when_nothing_moves(browser: BrowserOperator) -> None:
    await browser.observe()
    up = await browser.execute(A.Scroll(direction=A.Direction.UP))
    assert up.outcome is Outcome.NO_EFFECT and "already at the edge" in up.message
    assert (await browser.execute(A.Scroll(direction=A.Direction.DOWN, amount=500))).ok
    assert "Scroll: 500px from top" in (await browser.observe()).render()


async def test_disabled_button_and_unknown_or_stale_indices(browser: BrowserOperator) -> None:
    # The "End" link sits below the fold: counted, not listed, so the indices stop at [4].
    assert "Out of view: 1 more below" in (await browser.observe()).render()
    disabled = await browser.execute(A.Click(index=4))
    assert disabled.outcome is Outcome.NOT_ACTIONABLE and "disabled" in disabled.message
    unknown = await browser.execute(A.Click(index=42))
    assert unknown.outcome is Outcome.TARGET_NOT_FOUND and "[1]–[4]" in unknown.message
    await browser.execute(A.Navigate(url=page("<button>Other</button>")))
    stale = await browser.execute(A.Click(index=3))
    assert stale.outcome is Outcome.STALE_INDEX


async def test_navigation_failures_are_reported(browser: BrowserOperator, site) -> None:
    missing = await browser.execute(A.Navigate(url=f"{site.url}/nowhere"))
    assert missing.outcome is Outcome.NAVIGATION_FAILED and "HTTP 404" in missing.message
    refused = await browser.execute(A.Navigate(url="http://127.0.0.1:9/"))
    assert refused.outcome is Outcome.NAVIGATION_FAILED


async def test_a_dead_browser_is_a_clear_error(browser: BrowserOperator) -> None:
    assert browser._launched is not None and browser._launched.browser is not None
    await browser._launched.browser.close()
    with pytest.raises(OperatorError, match="the browser is gone"):
        await browser.observe()
    result = await browser.execute(A.Click(index=1))
    assert result.outcome is Outcome.BROWSER_GONE


async def test_a_configured_browser_that_does_not_exist(tmp_path) -> None:
    operator = BrowserOperator(BrowserOptions(browser_path=str(tmp_path / "no-chromium")))
    with pytest.raises(OperatorError, match="does not exist"):
        await operator.start(None)


POINTER = """<!doctype html><title>Pointer</title>
<button id="b" ondblclick="this.textContent='double'"
  oncontextmenu="event.preventDefault(); this.textContent='right'">once</button>
<input aria-label="Search" onkeydown="if (event.key === 'Enter') this.value = 'sent:' + this.value">"""


async def test_double_right_click_keys_and_typing_into_the_focused_element() -> None:
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start(page(POINTER))
    try:
        await operator.observe()
        assert (await operator.execute(A.DoubleClick(index=1))).ok
        assert '[1] button "double"' in (await operator.observe()).render()
        assert (await operator.execute(A.RightClick(index=1))).ok
        assert '[1] button "right"' in (await operator.observe()).render()
        assert (await operator.execute(A.Key(key="Tab"))).ok
        assert '[2] textbox "Search" focused' in (await operator.observe()).render()
        assert (await operator.execute(A.Type(text="kimchi", submit=True))).ok
        assert 'value="sent:kimchi"' in (await operator.observe()).render()
        assert (await operator.execute(A.Wait(seconds=0.1))).ok
    finally:
        await operator.close()


MOVING_ID = """<!doctype html><title>Ids</title><button id="a">Move</button><button id="b">Old B</button>
<script>document.getElementById("a").onclick = () => {
  document.getElementById("b").id = "c";
  const fresh = document.createElement("button"); fresh.id = "b"; fresh.textContent = "New B";
  document.body.append(fresh);
};</script>"""


async def test_a_look_answers_the_paths_a_recipe_looks_for_until_the_page_is_acted_on() -> None:
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start(page(MOVING_ID))
    try:
        operator.expect_to_find(["#a", "#b", "#nowhere", "[not a selector"])
        seen = await operator.observe(screenshot=False)
        frame = operator.page.main_frame
        calls: list[str] = []
        asked = frame.evaluate

        async def counted(script: str, arg: object = None) -> object:
            calls.append(script)
            return await asked(script, arg)

        frame.evaluate = counted  # type: ignore[method-assign]
        found = [await operator.find(path) for path in ("#a", "#b", "#nowhere", "[not a selector")]
        assert not calls, "the look answered them: no call of their own"
        assert [seen.elements[i].name if i else None for i in found] == ["Move", "Old B", None, None]
        assert await operator.find("button") is None and len(calls) == 1  # one not expected: asked
        assert (await operator.execute(A.Click(index=found[0] or 0))).ok
        # Acted on, the page is asked again: #b is now a button the last look did not list.
        assert await operator.find("#b") is None
        after = await operator.observe(screenshot=False)
        again = await operator.find("#b")
        assert again is not None and after.elements[again].name == "New B"
    finally:
        await operator.close()

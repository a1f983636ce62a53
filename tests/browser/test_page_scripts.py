"""goalbot's look is put in every document before the page's own scripts, under a name the page
cannot know beforehand and cannot take over once it finds it; a document the scripts did not
reach (open before goalbot attached) gets them at its first look."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.async_api import async_playwright

from goalbot.actions import Click

from goalbot.operators.browser.launch import launch_browser
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.observe import PageObserver
from goalbot.operators.browser.operator import BrowserOperator

# Finds every goalbot name on the page and tries each way to put its own look in their place:
# a look that would show the model a page with nothing on it.
HOSTILE = """<!doctype html><title>Shop</title><h1>Real heading</h1><button>Pay now</button>
<script>
const fake = () => ({title: "Fake", items: [{kind: "text", text: "Nothing to see"}], frames: [],
  hidden: {above: 0, below: 0, left: 0, right: 0}, watched: true, signature: "x", changes: 0});
const takeOver = () => {
  const names = Object.getOwnPropertyNames(window).filter((name) => name.startsWith("__goalbot"));
  for (const name of names) {
    try { window[name] = fake; } catch (e) {}
    try { Object.defineProperty(window, name, {value: fake}); } catch (e) {}
    try { delete window[name]; } catch (e) {}
    try { Object.setPrototypeOf(window, {[name]: fake}); } catch (e) {}
  }
  document.title = "Shop, " + names.filter((name) => name.startsWith("__goalbotLook")).length + " looks found";
};
takeOver();
setTimeout(takeOver, 30);
</script>"""


async def test_a_page_that_finds_goalbots_look_cannot_replace_it(chromium: None) -> None:
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start("data:text/html," + quote(HOSTILE))
    try:
        text = (await operator.observe(screenshot=False)).render()
    finally:
        await operator.close()
    assert "Shop, 2 looks found" in text  # the page did find both and went for them
    assert "Real heading" in text and 'button "Pay now"' in text
    assert "Nothing to see" not in text


async def test_a_document_goalbot_did_not_prepare_gets_its_scripts_at_the_first_look(chromium: None) -> None:
    async with async_playwright() as playwright:
        browser = await launch_browser(playwright, BrowserOptions(headless=True))
        try:
            page = await (await browser.new_context()).new_page()  # no init scripts: as if open before
            await page.goto("data:text/html," + quote("<h1>Opened before</h1><a href='#x'>Onwards</a>"))
            assert not await page.evaluate("() => !!window.__goalbotWatch")
            first = await PageObserver(max_text=2000).observe(page)
            watched = await page.evaluate("() => !!window.__goalbotWatch")
            second = await PageObserver(max_text=2000).observe(page)
        finally:
            await browser.close()
    for view in (first, second):
        lines = [item.line() for item in view.items]
        assert any("Opened before" in line for line in lines) and any("Onwards" in line for line in lines), lines
    assert watched


# goalbot's calls carry their answers as JSON text: a page that rewrites JSON, or gives every object
# and array a toJSON, would answer for goalbot's scripts. Each page tries it once loaded.
FAKE_LOOK = ('{"title": "Fake", "items": [{"kind": "text", "text": "Nothing to see"}], "frames": [],'
             ' "hidden": {"above": 0, "below": 0, "left": 0, "right": 0}, "signature": "x", "changes": 0}')
REWRITES = {
    "JSON replaced": f"JSON.stringify = () => '{FAKE_LOOK}'; JSON.parse = () => ({{clip: [0, 0, 1, 1], maxText: 1}});",
    "toJSON given": f"Object.prototype.toJSON = function () {{ return {FAKE_LOOK}; }};"
                    " Array.prototype.toJSON = function () { return []; };",
}


@pytest.mark.parametrize("rewrite", REWRITES.values(), ids=REWRITES.keys())
async def test_a_page_that_rewrites_json_cannot_answer_for_goalbot(chromium: None, rewrite: str) -> None:
    page = (f"<!doctype html><title>Shop</title><h1>Real heading</h1><button id='pay' "
            f"onclick=\"this.textContent='Paid'\">Pay now</button><script>{rewrite}</script>")
    operator = BrowserOperator(BrowserOptions(headless=True))
    await operator.start("data:text/html," + quote(page))
    try:
        seen = await operator.observe(screenshot=False)
        index = await operator.find("#pay")
        result = await operator.execute(Click(index=index or 0))
        after = (await operator.observe(screenshot=False)).render()
    finally:
        await operator.close()
    text = seen.render()
    assert "Real heading" in text and 'button "Pay now"' in text and "Nothing to see" not in text
    assert index is not None and seen.elements[index].name == "Pay now"
    assert result.ok, result.message
    assert 'button "Paid"' in after

"""Every action against real Chromium on the hard pages, checked on the page's own state after."""

from __future__ import annotations

from pathlib import Path
from kit import open_page
from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.llm.keys import key_name
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import REPORT_CSV, HardSite


async def text_of(browser: BrowserOperator, selector: str) -> str:
    return await browser.page.locator(selector).inner_text()


async def test_typing_and_clicking_inside_a_cross_origin_frame(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("frames"))
    assert (await browser.execute(A.Type(index=3, text="KIMCHI10"))).ok
    assert (await browser.execute(A.Click(index=4))).ok
    payment = next(f for f in browser.page.frames if f.url.startswith(hardsite.other))
    assert await payment.input_value("#code") == "KIMCHI10"
    port = hardsite.other.rsplit(":", 1)[1]
    assert await payment.inner_text("#out") == f"pressed on {port}"
    coupon = next(f for f in browser.page.frames if f.url.startswith(hardsite.url) and f != browser.page.main_frame)
    assert await coupon.input_value("#code") == ""
    # Not cleared: added after what the field holds, wherever its caret was.
    await coupon.evaluate("() => { const e = document.querySelector('#code'); e.value = 'SPRING'; e.setSelectionRange(0, 0); }")
    assert (await browser.execute(A.Type(index=1, text="24", clear=False))).ok
    assert await coupon.input_value("#code") == "SPRING24"


async def test_inside_shadow_roots(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("shadow"))
    assert (await browser.execute(A.Type(index=1, text="Jin"))).ok
    assert (await browser.execute(A.Click(index=2))).ok
    assert '[2] switch "Newsletter" checked' in (await browser.observe()).render()
    assert (await browser.execute(A.Click(index=3))).ok
    assert await text_of(browser, "fancy-form >> #out") == "created Jin"


async def test_a_click_that_changes_nothing_is_no_effect_and_a_covered_one_not_actionable(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    await open_page(browser, hardsite.page("cover"))
    nothing = await browser.execute(A.Click(index=3))
    assert nothing.outcome is Outcome.NO_EFFECT and "nothing changed" in nothing.message
    # What the pointer's arrival changes is the hover's, not the click's.
    hovered = await browser.execute(A.Click(index=4))
    assert hovered.outcome is Outcome.NO_EFFECT, hovered.message
    assert await browser.page.get_attribute("text=Only hovers", "class") == "hovered"
    assert (await browser.execute(A.Click(index=2))).ok  # shows the banner over "Under"
    covered = await browser.execute(A.Click(index=1))
    assert covered.outcome is Outcome.NOT_ACTIONABLE
    assert 'covered by div "Cookie banner"' in covered.message
    assert await text_of(browser, "#under") == "Under"


async def test_modal_dialog_then_the_page_behind(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("modal"))
    assert (await browser.execute(A.Type(index=2, text="JK"))).ok
    assert (await browser.execute(A.Click(index=3))).ok
    assert await browser.page.title() == "Accepted"
    assert '[1] button "Behind the dialog"' in (await browser.observe()).render()


async def test_select_on_a_custom_combobox(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("dropdown"))
    result = await browser.execute(A.SelectOption(index=1, option="Kiwi"))
    assert result.ok, result.message
    assert await text_of(browser, "#chosen") == "chosen: kiwi"
    missing = await browser.execute(A.SelectOption(index=1, option="Durian"))
    assert missing.outcome is Outcome.TARGET_NOT_FOUND and "Durian" in missing.message


async def test_custom_clickables_hidden_checkbox_and_contenteditable(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("widgets"))
    assert (await browser.execute(A.Click(index=7))).ok
    assert await text_of(browser, "#card") == "Added"
    assert (await browser.execute(A.Click(index=14))).ok
    assert await browser.page.is_checked("label.fancy input")
    assert (await browser.execute(A.Type(index=6, text="I like tofu"))).ok
    assert await text_of(browser, "[contenteditable]") == "I like tofu"
    disabled = await browser.execute(A.Click(index=13))
    assert disabled.outcome is Outcome.NOT_ACTIONABLE and "disabled" in disabled.message


async def test_scrolling_a_pane_and_the_page_in_every_direction(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("pane"))
    assert (await browser.execute(A.Scroll(index=1, direction=A.Direction.DOWN, amount=400))).ok
    text = (await browser.observe()).render()
    index = next(e.index for e in (await browser.observe()).elements.values() if e.name == "Message 20")
    assert (await browser.execute(A.Click(index=index))).ok, text
    assert await browser.page.locator("#inbox button").nth(19).inner_text() == "read 20"
    box = await browser.page.locator("#inbox").bounding_box()
    assert box is not None
    before = await browser.page.evaluate("document.getElementById('inbox').scrollTop")
    wheel = await browser.execute(A.Scroll(direction=A.Direction.DOWN, amount=200,
                                           x=box["x"] + 50, y=box["y"] + 50))
    assert wheel.ok, wheel.message  # the wheel scrolls the pane under the pointer
    assert await browser.page.evaluate("document.getElementById('inbox').scrollTop") == before + 200
    edge = await browser.execute(A.Scroll(direction=A.Direction.LEFT))
    assert edge.outcome is Outcome.NO_EFFECT
    await browser.page.set_content("<div style='width:4000px; height:4000px'>wide</div>")
    assert (await browser.execute(A.Scroll(direction=A.Direction.RIGHT, amount=300))).ok
    assert (await browser.execute(A.Scroll(direction=A.Direction.DOWN, amount=200))).ok
    assert await browser.page.evaluate("[scrollX, scrollY]") == [300, 200]


async def test_a_link_to_a_new_tab_then_switch_and_close(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("tabs"))
    opened = await browser.execute(A.Click(index=1))
    assert opened.ok and "a new tab opened" in opened.message
    text = (await browser.observe()).render()
    assert "Tabs: 1: Tabs, 2: Help (current: 2)" in text and "# Help page" in text
    assert (await browser.execute(A.Click(index=1))).ok
    assert await text_of(browser, "button") == "thanks"
    assert (await browser.execute(A.SwitchTab(tab=1))).ok
    assert browser.page.url.endswith("/tabs.html")
    assert (await browser.execute(A.CloseTab(tab=2))).ok
    assert len(browser.page.context.pages) == 1
    last = await browser.execute(A.CloseTab())
    assert last.outcome is Outcome.NOT_ACTIONABLE
    nowhere = await browser.execute(A.SwitchTab(tab=5))
    assert nowhere.outcome is Outcome.TARGET_NOT_FOUND


async def test_a_download_is_saved_and_reported(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("download"))
    result = await browser.execute(A.Click(index=1))
    assert result.ok and "downloaded report.csv" in result.message
    # The page stays where it was: no look waits for it to go (the settle's bound, 2.5 s, each time).
    assert not await browser.page.evaluate("window.__goalbotWatch.leaving")
    [saved] = result.files
    assert saved.name == "report.csv" and saved.mime == "text/csv"
    assert Path(saved.path).read_text() == REPORT_CSV


async def test_uploads_into_a_file_input_and_through_a_picker_button(
    browser: BrowserOperator, hardsite: HardSite, tmp_path: Path
) -> None:
    receipt = tmp_path / "receipt.txt"
    receipt.write_text("kimchi 3000 won")
    text = await open_page(browser, hardsite.page("upload"))
    assert '[1] button type=file "Receipt"' in text
    assert (await browser.execute(A.UploadFile(index=1, path=str(receipt)))).ok
    assert await text_of(browser, "#got") == "got receipt.txt"
    assert 'value="receipt.txt"' in (await browser.observe()).render()
    assert (await browser.execute(A.UploadFile(index=2, path=str(receipt)))).ok
    assert await text_of(browser, "#got") == "photo receipt.txt"
    missing = await browser.execute(A.UploadFile(index=1, path=str(tmp_path / "nope.txt")))
    assert missing.outcome is Outcome.TARGET_NOT_FOUND
    await open_page(browser, hardsite.page("tabs"))
    not_a_picker = await browser.execute(A.UploadFile(index=1, path=str(receipt)))
    assert not_a_picker.outcome is Outcome.NOT_ACTIONABLE


async def test_alert_confirm_and_prompt_are_answered_and_reported(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("dialogs"))
    alert = await browser.execute(A.Click(index=1))
    assert alert.ok and 'an alert dialog said "Saved!"' in alert.message
    assert await text_of(browser, "#out") == "alerted"
    confirm = await browser.execute(A.Click(index=2))
    assert 'confirm dialog said "Delete 3 items?"; goalbot accepted it' in confirm.message
    assert await text_of(browser, "#out") == "deleted"
    prompt = await browser.execute(A.Click(index=3))
    assert "accepted it with 'guest'" in prompt.message
    assert await text_of(browser, "#out") == "hello guest"


async def test_drag_element_to_element_and_by_coordinates(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("dragdrop"))
    assert '[1] draggable "Task card"' in text and '[2] clickable "Done column"' in text
    assert (await browser.execute(A.Drag(index=1, to_index=2))).ok
    assert await text_of(browser, "#log") == "dropped"
    assert await browser.page.evaluate("document.getElementById('done').contains(document.getElementById('card'))")
    pad = await browser.page.locator("#pad").bounding_box()
    assert pad is not None
    x, y = pad["x"], pad["y"]
    assert (await browser.execute(A.Drag(x=x + 10, y=y + 20, to_x=x + 200, to_y=y + 100))).ok
    assert await text_of(browser, "#log") == "stroke 10,20 -> 200,100"


async def test_hover_reveals_a_menu(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("hover"))
    result = await browser.execute(A.Hover(index=1))
    assert result.ok and "the page changed" in result.message
    text = (await browser.observe()).render()
    assert '*[2] link "Profile"' in text and '*[3] link "Log out"' in text


async def test_waiting_for_text(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("later"))
    await browser.execute(A.Click(index=1))  # the report shows 2.5 s later
    result = await browser.execute(A.Wait(text="Report ready", seconds=10))
    assert result.ok, result.message
    never = await browser.execute(A.Wait(text="Never shown", seconds=0.5))
    assert never.outcome is Outcome.TIMEOUT and "did not appear within 0.5s" in never.message


async def test_keys_and_hotkeys(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("frames"))
    unfocused = await browser.execute(A.Type(text="abc"))
    assert unfocused.outcome is Outcome.NOT_ACTIONABLE and "no field has focus" in unfocused.message
    assert (await browser.execute(A.Click(index=1))).ok  # focus the coupon field
    assert (await browser.execute(A.Type(text="abc", clear=False))).ok
    assert (await browser.execute(A.Hotkey(keys=["Shift", "Home"]))).ok
    assert (await browser.execute(A.Key(key="Backspace"))).ok
    coupon = browser.page.frames[1]
    assert await coupon.input_value("#code") == ""
    assert (await browser.execute(A.Type(text="a", clear=False))).ok
    assert (await browser.execute(A.Key(key=key_name("space")))).ok
    assert await coupon.input_value("#code") == "a "


async def test_captcha_is_handed_to_the_person(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("captcha"))
    result = await browser.execute(A.Click(index=1))
    assert result.outcome is Outcome.CAPTCHA_OR_2FA and "call_user" in result.message
    assert not await browser.page.is_checked(".g-recaptcha input")


async def test_back_and_navigation_errors(browser: BrowserOperator, hardsite: HardSite) -> None:
    nothing = await browser.execute(A.GoBack())
    assert nothing.outcome is Outcome.NO_EFFECT
    await open_page(browser, hardsite.page("tabs"))
    await open_page(browser, hardsite.page("help"))
    assert (await browser.execute(A.GoBack())).ok
    assert browser.page.url == hardsite.page("tabs")
    missing = await browser.execute(A.Navigate(url=f"{hardsite.url}/nowhere.html"))
    assert missing.outcome is Outcome.NAVIGATION_FAILED and "HTTP 404" in missing.message

"""What the navigator sees on the hard pages: frames, shadow DOM, modals, widgets, big pages."""

from __future__ import annotations

from kit import open_page
from goalbot import actions as A
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite


async def test_iframes_of_both_origins_are_seen_in_place(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("frames"))
    lines = text.splitlines()
    assert lines.index(f'--- frame "Coupon" {hardsite.url} ---') < lines.index('[1] textbox "Code"')
    assert lines.index(f'--- frame "Payment" {hardsite.other} ---') < lines.index('[3] textbox "Code"')
    assert lines.index('[4] button "Apply"') < lines.index('[5] button "Pay now"')


async def test_open_shadow_roots_are_walked(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("shadow"))
    assert '[1] textbox "Nickname"' in text
    assert '[2] switch "Newsletter" unchecked' in text
    assert '[3] button "Create account"' in text


async def test_a_modal_dialog_hides_what_is_behind_it(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("modal"))
    assert '[1] dialog "Accept the terms"' in text and "You must accept before shopping." in text
    assert '[2] textbox "Initials"' in text and '[3] button "Accept"' in text
    assert "Behind the dialog" not in text and "Also behind" not in text


async def test_widgets_custom_clickables_and_what_a_person_reads(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("widgets"))
    for line in [
        "! Your session expires in 5 minutes.",
        '[1] tab "General" selected',
        '[3] slider "Volume" value="30"',
        '[4] treeitem "Documents" collapsed',
        '[5] menuitem "Rename"',
        '[6] textbox "Bio" value="I like kimchi"',
        '[7] clickable "Add to cart"',  # a click listener added from script
        '[8] clickable "Show more"',  # only a pointer cursor says it is clickable
        '[9] clickable "Focusable tile"',
        '[10] textbox "Nickname" placeholder="e.g. Jin"',  # named by the text beside it
        '[11] textbox type=date "Birthday"',
        '[12] textbox type=password "Password"',
        '[13] button "Delete account" disabled',
        '[14] checkbox "Remember me" unchecked',  # invisible input, visible label
    ]:
        assert line in text, line
    for hidden in ("Gone", "Invisible", "Transparent"):
        assert hidden not in text


async def test_a_scroll_container_says_what_it_hides(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("pane"))
    assert '[1] scrollable "Inbox" (50 more below inside)' in text
    assert '"Message 10"' in text and '"Message 11"' not in text
    assert (await browser.execute(A.Scroll(index=1, direction=A.Direction.DOWN, amount=400))).ok
    after = (await browser.observe()).render()
    assert '"Message 1"' not in after and '"Message 20"' in after
    assert "more above" in after and "more below inside" in after


async def test_a_huge_table_stays_within_budget_and_keeps_what_is_in_view(
    browser: BrowserOperator, hardsite: HardSite
) -> None:
    browser.budget = 2000
    text = await open_page(browser, hardsite.page("table"))
    assert len(text) <= 2000
    assert '[1] textbox "Row 1 · Qty" value="1"' in text
    assert '[3] checkbox "Row 1 · Done" unchecked' in text
    assert "observation cut to its budget of 2000 characters" in text
    assert "Out of view: 2919 more below" in text  # 3,000 inputs, 81 in view
    browser.budget = 8000
    full = (await browser.observe()).render()
    assert "[81] checkbox" in full and "cut to its budget" not in full


async def test_elements_that_appear_are_marked_new(browser: BrowserOperator, hardsite: HardSite) -> None:
    first = await open_page(browser, hardsite.page("dropdown"))
    assert "*[" not in first  # nothing is new on a first look
    assert (await browser.execute(A.Click(index=1))).ok
    opened = (await browser.observe()).render()
    assert '[1] combobox "Fruit" value="Pick a fruit" expanded' in opened and '*[2] listbox' in opened
    assert '*[3] option "Apple"' in opened and '*[5] option "Plum"' in opened
    again = (await browser.observe()).render()
    assert "*[" not in again


async def test_captcha_and_one_time_code_pages_are_recognised(browser: BrowserOperator, hardsite: HardSite) -> None:
    captcha = await open_page(browser, hardsite.page("captcha"))
    assert "! CaptchaOr2FA: This page shows a CAPTCHA" in captcha
    assert '[1] checkbox "I\'m not a robot" unchecked captcha' in captcha
    otp = await open_page(browser, hardsite.page("otp"))
    assert "! CaptchaOr2FA: This page asks for a one-time code" in otp
    assert '[1] textbox "Verification code" one-time-code' in otp


async def test_boxes_are_in_top_level_viewport_pixels(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("frames"))
    observation = await browser.observe()
    inner = observation.elements[3].box  # inside the cross-origin frame
    frame_box = await (await browser.page.query_selector("iframe[title=Payment]")).bounding_box()  # type: ignore[union-attr]
    assert inner is not None and frame_box is not None
    assert frame_box["x"] <= inner[0] <= frame_box["x"] + frame_box["width"]
    assert frame_box["y"] <= inner[1] <= frame_box["y"] + frame_box["height"]


async def test_card_security_codes_and_lookalike_names_are_no_two_factor(browser: BrowserOperator) -> None:
    await browser.page.set_content(
        "<label>Security code <input id='cvc'></label><label>Size <input id='footprint'></label>"
        "<label>OTP <input name='otp_code'></label>"
    )
    text = (await browser.observe()).render()
    assert '[1] textbox "Security code"\n' in text and '[2] textbox "Size"\n' in text
    assert '[3] textbox "OTP" one-time-code' in text


async def test_a_field_is_named_by_its_label_on_any_side_and_a_drawn_point_by_where_it_is(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    """Seed 002 §6.2 reads structure as a person does: a label after or below its field names it,
    and 25 look-alike points are told apart by the ticks of their column and row."""
    text = await open_page(browser, hardsite.page("structure"))
    for line in ('textbox "Genre"', 'textbox "Year"', 'textbox "Director"', 'textbox "Country"',
                 'textbox "Min"', 'textbox "Max"'):
        assert line in text, (line, text)
    points = [line for line in text.splitlines() if '"point (' in line]
    assert len(points) == 25 and len(set(line.split("] ", 1)[1] for line in points)) == 25, text
    index = next(line for line in points if '"point (-1, 0)"' in line).split("]")[0].lstrip("[")
    assert (await browser.execute(A.Click(index=int(index)))).ok
    text = (await browser.observe()).render()
    assert "picked: (-1, 0)" in text
    stars = [line for line in text.splitlines() if '"rate it"' in line]
    assert len(stars) == 3 and len({line.rsplit(" at ", 1)[1] for line in stars}) == 3, stars


async def test_a_drawn_point_is_named_by_the_html_ticks_laid_over_its_drawing(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    """Charts often draw their axis ticks as HTML over the SVG: those name the points too, not the
    whole area's words."""
    text = await open_page(browser, hardsite.page("overlaid-ticks"))
    points = [line for line in text.splitlines() if '"point (' in line]
    assert len(points) == 25 and len(set(line.split("] ", 1)[1] for line in points)) == 25, text
    index = next(line for line in points if '"point (1, -2)"' in line).split("]")[0].lstrip("[")
    assert (await browser.execute(A.Click(index=int(index)))).ok
    assert "picked: (1, -2)" in (await browser.observe()).render()


async def test_an_app_drawn_into_a_listening_root_is_read_and_its_toast_is_announced(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    """A single-page app: React's one listener on the element it renders into, a wrapper of no
    height with a listener, a <main> tabbable to scroll and listening for clicks. None of them is a
    control that would hide the page's words; a card with its own listener still is one."""
    text = await open_page(browser, hardsite.page("delegated"))
    assert "# 여행 기록 (Trips)" in text, text
    assert '[1] scrollable' in text and 'textbox "이름 (Name)"' in text and 'button "Save trip"' in text
    assert 'clickable "주문 7 열기 (Open order 7)"' in text, text
    # A polite live region wrapping a list announces none of its rows.
    assert "서울 (Seoul)" in text and "! 서울" not in text
    name = next(line for line in text.splitlines() if 'textbox "이름 (Name)"' in line).split("]")[0].strip("[")
    save = next(line for line in text.splitlines() if 'button "Save trip"' in line).split("]")[0].strip("[")
    assert (await browser.execute(A.Type(index=int(name), text="민지"))).ok
    assert (await browser.execute(A.Click(index=int(save)))).ok
    assert (await browser.execute(A.Wait(text="여행을 저장했어요", seconds=10))).ok
    seen = await browser.observe()
    # The status region's words are the page's announcement, however deep its markup holds them.
    assert "! 민지님의 여행을 저장했어요 (Saved)." in seen.render(), seen.render()

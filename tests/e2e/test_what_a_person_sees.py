"""The observation names what a person sees on the screen: icons without text, drawings, long
text, kinds of fields, several choices, unnamed controls by their place, and not what is leaving.
The page (hardsite/pages/seeing.html) has one of each."""

from __future__ import annotations

import json
from pathlib import Path

from kit import answer, call, finished, open_page, plan, run_goal, types, verdict
from goalbot import actions as A
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite


async def test_icons_drawings_kinds_and_places_are_named(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("seeing"))
    for line in [
        '[1] button "trash (icon)"',  # a CSS background image: the class says what it is
        '[2] clickable "star (icon)"',  # an icon font
        '[3] button "Reply"',  # an SVG's <title>
        '[4] clickable "Retweet"',  # a tooltip
        '[5] clickable "Apples"',  # SVG text inside the clickable group
        '[6] clickable "Pears"',  # a pie piece, named by the label drawn beside it
        '[7] textbox "Your answer"',  # a placeholder, not the paragraph before the field
        '[8] textbox type=multi-line "Comment"',
        '[9] textbox "Title"',
        '[10] slider "Volume" value="3" range 0–10',
        '[11] spinbutton type=number "Guests" value="2" range 1–8',
        '[12] listbox "Fruits" value="Banana" options=["Apple", "Banana ✓", "Cherry", "Damson"] multiple',
        '[14] clickable "caret (icon) · Documents"',  # a tree's expander, by its row
    ]:
        assert line in text, f"{line}\n---\n{text}"
    cells = [line for line in text.splitlines() if line.startswith(("[15]", "[16]", "[17]"))]
    assert len(cells) == 3 and all('clickable "" at (' in line for line in cells), cells


async def test_a_long_paragraph_keeps_its_end(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("seeing"))
    assert "asked it what the twelfth word of its very first entry had been." in text


async def test_what_is_fading_away_is_not_offered(browser: BrowserOperator, hardsite: HardSite) -> None:
    text = await open_page(browser, hardsite.page("seeing"))
    assert "Fading away" not in text


async def test_several_options_are_chosen_one_after_another(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("seeing"))
    added = await browser.execute(A.SelectOption(index=12, option="Apple", keep_others=True))
    assert added.ok and "chosen now: Apple, Banana" in added.message, added.message
    assert '"Apple ✓", "Banana ✓"' in (await browser.observe()).render()
    replaced = await browser.execute(A.SelectOption(index=12, option="Damson"))
    assert replaced.ok and "chosen now: Damson" in replaced.message, replaced.message
    # A list that holds one choice has no others to keep: the choice simply changes.
    single = await browser.execute(A.SelectOption(index=18, option="Large", keep_others=True))
    assert single.ok and single.message == "selected 'Large' in [18]", single.message
    assert '[18] combobox "Size" value="Large"' in (await browser.observe()).render()


def test_a_goal_that_needs_icons_and_several_choices_is_reached(hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Star the message, choose Apple and Cherry as well, and open Documents")],
        "navigator": [
            answer(call("click", index={"$element": "star (icon)"})),
            answer(call("select_option", index={"$element": "Fruits"}, option="Apple", keep_others=True)),
            answer(call("select_option", index={"$element": "Fruits"}, option="Cherry", keep_others=True)),
            answer(call("click", index={"$element": "caret (icon) · Documents"})),
            finished(summary="starred, chose Apple and Cherry, opened Documents"),
        ],
        "validator": [verdict(True, "all done"), verdict(True, "all done")],
    })
    result, events = run_goal(db_path, model, hardsite.page("seeing"), "star it, add Apple and Cherry, open Documents")
    assert result.returncode == 0, result.stderr
    assert types(events)[-1] == "TASK_OK"
    done = [e for e in events if e["type"] == "ACT_OK"]
    messages = [json.dumps(e) for e in done]
    assert any("chosen now: Apple, Banana, Cherry" in m for m in messages), messages
    assert len([e for e in events if e["type"] == "ACT_FAIL"]) == 0


async def test_a_page_that_draws_after_loading_is_looked_at_when_done(browser: BrowserOperator, hardsite: HardSite) -> None:
    # The toolbar's buttons come after the load event, each sized only when its picture arrives.
    text = await open_page(browser, hardsite.page("drawn-late"))
    for name in ("Bold", "Italic", "Underline", "Strike", "Start writing"):
        assert f'button "{name}"' in text, text


async def test_a_look_waits_for_the_data_the_page_is_fetching(browser: BrowserOperator, hardsite: HardSite) -> None:
    # The banner is drawn from a read the server answers late, as a busy server does: a look
    # taken while the read is in flight would show a page without it.
    hardsite.reset()
    hardsite.posted["banner"] = True
    hardsite.slow["/api/banner"] = 0.8
    text = await open_page(browser, hardsite.page("consent"))
    assert 'button "Accept all"' in text, text


def test_a_start_screen_drawn_late_needs_no_second_plan(hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Press Start writing")],
        "navigator": [answer(call("click", index={"$element": "Start writing"})), finished(summary="started")],
        "validator": [verdict(True, "started"), verdict(True, "started")],
    })
    result, events = run_goal(db_path, model, hardsite.page("drawn-late"), "start writing")
    assert result.returncode == 0, result.stderr
    assert [e for e in events if e["type"] == "ACT_FAIL"] == []
    assert len([e for e in events if e["type"] == "PLAN_PROPOSED"]) == 1


def _options(text: str) -> list[str]:
    return [line.split('option "')[1].rstrip('"') for line in text.splitlines() if 'option "' in line]


async def test_suggestions_that_come_late_are_seen_and_counted(browser: BrowserOperator, hardsite: HardSite) -> None:
    await open_page(browser, hardsite.page("suggest"))
    typed = await browser.execute(A.Type(index=1, text="B"))
    assert typed.ok and typed.message.endswith("; the page changed after typing"), typed.message
    text = (await browser.observe()).render()
    # The list is named by the field that opens it, and says how much of it is out of sight.
    assert '[2] listbox "Dish" scrollable (4 more below inside)' in text, text
    seen = _options(text)
    assert seen == ["Bibimbap", "Bulgogi", "Bossam", "Budae jjigae"], text
    # A default scroll moves the list by most of what it shows, never past what it did not show.
    scrolled = await browser.execute(A.Scroll(index=2, direction=A.Direction.DOWN))
    assert scrolled.ok, scrolled.message
    after = _options((await browser.observe()).render())
    assert seen[-1] in after and "Bindaetteok" in after, after


async def test_suggestions_are_seen_when_the_page_changed_before_them(browser: BrowserOperator,
                                                                      hardsite: HardSite) -> None:
    # The page counts the characters at once, and suggests 700 ms later: the first change after
    # typing is not the page's answer to it.
    await open_page(browser, hardsite.page("suggest") + "?counted")
    typed = await browser.execute(A.Type(index=1, text="Kim"))
    assert typed.ok, typed.message
    text = (await browser.observe()).render()
    assert "3 characters" in text and _options(text) == ["Kimchi stew", "Kimbap"], text


def test_a_dish_is_chosen_from_suggestions_that_come_late(hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Pick Kimchi stew in the Dish field")],
        "navigator": [
            answer(call("type", index={"$element": "Dish"}, text="Kim")),
            answer(call("click", index={"$element": "Kimchi stew"})),
            finished(summary="picked Kimchi stew"),
        ],
        "validator": [verdict(True, "picked"), verdict(True, "picked")],
    })
    result, events = run_goal(db_path, model, hardsite.page("suggest"), "pick kimchi stew")
    assert result.returncode == 0, result.stderr
    assert [e for e in events if e["type"] == "ACT_FAIL"] == []
    assert len([e for e in events if e["type"] == "PLAN_PROPOSED"]) == 1  # no re-plan was needed

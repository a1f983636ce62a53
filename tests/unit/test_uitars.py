"""The UI-TARS text dialect into goalbot's actions, coordinates mapped onto the viewport."""

from __future__ import annotations

import pytest

from goalbot import actions as A
from goalbot.llm.coordinates import Convention, Geometry
from goalbot.llm.uitars import TextAnswerError, UiTarsParser, parse_call

# A 1280x800 viewport whose screenshot went out as 640x400: every pixel answer doubles.
HALF = Geometry.for_screenshot((1280, 800), sent=(640, 400))


def parse(text: str, convention: Convention = Convention.PIXELS) -> list[A.Action]:
    return UiTarsParser(HALF, convention).parse(text)


def test_thought_then_one_click() -> None:
    [click] = parse("Thought: The search box is at the top.\nAction: click(start_box='(100,50)')")
    assert click == A.Click(x=200, y=100)


def test_several_actions_separated_by_blank_lines() -> None:
    actions = parse(
        "Thought: fill in the search\nAction: click(start_box='(100,50,140,70)')\n\n"
        "type(content='kimchi stew\\n')\n\nhotkey(key='ctrl a')"
    )
    assert actions == [
        A.Click(x=240, y=120),
        A.Type(text="kimchi stew", clear=False, submit=True),
        A.Hotkey(keys=["Control", "a"]),
    ]


@pytest.mark.parametrize("answer, expected", [
    ("Action: left_double(start_box='<|box_start|>(10,20),(30,40)<|box_end|>')", A.DoubleClick(x=40, y=60)),
    ("Action: right_single(point='<point>50 60</point>')", A.RightClick(x=100, y=120)),
    ("Action: click(start_box='<bbox>0 0 20 20</bbox>')", A.Click(x=20, y=20)),
    ("Action: hover(start_box='(5,5)')", A.Hover(x=10, y=10)),
    ("Action: drag(start_box='(10,10)', end_box='(110,60)')", A.Drag(x=20, y=20, to_x=220, to_y=120)),
    ("Action: drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')", A.Drag(x=2, y=4, to_x=6, to_y=8)),
    ("Action: scroll(start_box='(100,100)', direction='up')", A.Scroll(direction=A.Direction.UP, x=200, y=200)),
    ("Action: scroll(direction='down')", A.Scroll(direction=A.Direction.DOWN)),
    ("Action: hotkey(key='enter')", A.Key(key="Enter")),
    ("Action: hotkey(key='Ctrl+Shift+T')", A.Hotkey(keys=["Control", "Shift", "t"])),
    ("Action: type(content='안녕하세요, \"friend\" (hi)')", A.Type(text='안녕하세요, "friend" (hi)', clear=False)),
    ("Action: wait()", A.Wait(seconds=5)),
    ("Action: finished(content='The cart holds 3 items.')", A.Finished(success=True, summary="The cart holds 3 items.")),
    ("Action: navigate(url='https://example.test/cart')", A.Navigate(url="https://example.test/cart")),
    ("Action: navigate_back()", A.GoBack()),
])
def test_every_action_form(answer: str, expected: A.Action) -> None:
    assert parse(answer) == [expected]


def test_call_user_asks_with_the_thought() -> None:
    [ask] = parse("Thought: A code was sent to the phone; only the person has it.\nAction: call_user()")
    assert ask == A.CallUser(question="A code was sent to the phone; only the person has it.")


def test_relative_1000_answers_of_ui_tars_1_0() -> None:
    [click] = parse("Action: click(start_box='(500,500)')", Convention.RELATIVE_1000)
    assert click == A.Click(x=640, y=400)


def test_a_normalised_answer_is_understood_whatever_was_configured() -> None:
    [click] = parse("Action: click(start_box='(0.25,0.5)')")
    assert click == A.Click(x=320, y=400)


@pytest.mark.parametrize("answer, message", [
    ("I would click the button.", "no `Action:` line"),
    ("Action: teleport(start_box='(1,2)')", "there is no action teleport()"),
    ("Action: click()", "needs a position"),
    ("Action: click(start_box='(1,2,3)')", "neither a point"),
    ("Action: type(content='unterminated)", "never closed"),
    ("Action: click(start_box='(1,2)'", "missing its closing parenthesis"),
    ("Action: scroll(direction='sideways')", "not up, down, left or right"),
    ("Action: hotkey()", "needs key="),
    ("Action: 42", "is not an action call"),
])
def test_unusable_answers_say_why(answer: str, message: str) -> None:
    with pytest.raises(TextAnswerError, match=message):
        parse(answer)


def test_quoted_arguments_keep_commas_parentheses_and_escapes() -> None:
    name, args = parse_call("type(content='a, (b)\\'s \\n', other=\"x\")")
    assert name == "type" and args == {"content": "a, (b)'s \n", "other": "x"}

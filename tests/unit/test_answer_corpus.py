"""A corpus of damaged and odd answers in the JSON and UI-TARS dialects. None may crash: each
either mends into the actions it unambiguously meant, or fails with a message for the model."""

from __future__ import annotations

import pytest

from goalbot import actions as A
from goalbot.llm.coordinates import Geometry
from goalbot.llm.jsonactions import JsonDialect
from goalbot.llm.repair import NoJson
from goalbot.llm.uitars import UiTarsParser

CLICK3 = [A.Click(index=3)]
VIEW = Geometry.for_screenshot((1000, 500))

MENDED = [
    ('{"action": "click", "index": 3}', CLICK3),
    ('```json\n{"action": "click", "index": 3}\n```', CLICK3),
    ('```\n{"action": "click", "index": 3}\n```', CLICK3),
    ('Sure! Here is my action: {"action": "click", "index": 3} Hope that helps.', CLICK3),
    ('{"action": "click", "index": 3,}', CLICK3),
    ("{'action': 'click', 'index': 3}", CLICK3),
    ('{action: "click", index: 3}', CLICK3),
    ('{"action": "click", "index": 3', CLICK3),
    ('[{"action": "click", "index": 3}', CLICK3),
    ('{"action": "left_click", "index": 3}', CLICK3),
    ('{"type": "click", "element": 3}', CLICK3),
    ('{"name": "click", "arguments": {"index": 3}}', CLICK3),
    ('{"name": "click", "arguments": "{\\"index\\": 3}"}', CLICK3),
    ('{"function": {"name": "click", "arguments": "{\\"index\\": 3}"}}', CLICK3),
    ('{"thought": "the button", "action": "click", "index": 3}', CLICK3),
    ('{"action": "CLICK", "index": 3}', CLICK3),
    ('{"action": "tap", "element_index": 3}', CLICK3),
    ('{"action": "click", "coordinate": [0.5, 0.5]}', [A.Click(x=500, y=250)]),
    ('{"action": "click", "x": 100, "y": 200}', [A.Click(x=100, y=200)]),
    ('{"action": "click", "bbox": [100, 100, 200, 200]}', [A.Click(x=150, y=150)]),
    ('{"action": "double_click", "point": "<point>10 20</point>"}', [A.DoubleClick(x=10, y=20)]),
    ('{"action": "input", "index": 2, "text": "kimchi"}', [A.Type(index=2, text="kimchi")]),
    ('{"action": "type", "index": 2, "content": "김치찌개"}', [A.Type(index=2, text="김치찌개")]),
    ("{'action': 'type', 'index': 2, 'text': \"it's hot\"}", [A.Type(index=2, text="it's hot")]),
    ('{"action": "type", "index": 2, "text": "a", "submit": True}', [A.Type(index=2, text="a", submit=True)]),
    ('{"action": "press", "key": "enter"}', [A.Key(key="Enter")]),
    ('{"action": "press", "key": "ctrl+c"}', [A.Hotkey(keys=["Control", "c"])]),
    ('{"action": "shortcut", "keys": ["ctrl", "shift", "t"]}', [A.Hotkey(keys=["Control", "Shift", "t"])]),
    ('{"action": "hotkey", "key": "cmd v"}', [A.Hotkey(keys=["Meta", "v"])]),
    ('{"action": "sleep", "duration": 2000}', [A.Wait(seconds=2)]),
    ('{"action": "wait", "seconds": 3}', [A.Wait(seconds=3)]),
    ('{"action": "done", "summary": "added"}', [A.Finished(summary="added")]),
    ('{"action": "finished", "status": "failed", "answer": "sold out"}', [A.Finished(success=False, summary="sold out")]),
    ('{"action": "goto", "url": "https://example.test"}', [A.Navigate(url="https://example.test")]),
    ('{"action": "back"}', [A.GoBack()]),
    ('{"action": "scroll", "direction": "down", "amount": 300}', [A.Scroll(direction=A.Direction.DOWN, amount=300)]),
    ('{"action": "select", "index": 4, "value": "Large"}', [A.SelectOption(index=4, option="Large")]),
    ('{"action": "ask_user", "content": "Which account?"}', [A.CallUser(question="Which account?")]),
    ('{"action": "save", "key": "price", "value": "3000"}', [A.SaveData(key="price", value="3000")]),
    ('{"action": "drag", "start_coordinate": [0, 0], "end_coordinate": [10, 10]}', [A.Drag(x=0, y=0, to_x=10, to_y=10)]),
    ('[{"action": "click", "index": 1}, {"action": "type", "text": "x"},]',
     [A.Click(index=1), A.Type(text="x")]),
    ('[{"action": "click", "index": 1}, {"action": "done"}]', [A.Click(index=1), A.Finished()]),
]

REFUSED = [
    ("I think you should click the blue button.", "no JSON object or list"),
    ("", "no JSON object or list"),
    ('{"action": "click", "index": 3 "extra": 1}', "JSON is broken"),
    ('{"action": "type", "text": "cut off', "JSON is broken"),
    ('{"action": "click", "index": 3,', "JSON is broken"),
    ('{"index": 3}', 'needs an "action" name'),
    ('{"action": "teleport", "index": 3}', "no action `teleport`"),
    ('{"action": "click"}', "`click` arguments are wrong"),
    ('{"action": "click", "index": "three"}', "`click` arguments are wrong"),
    ('{"action": "type", "index": 2}', "`type` arguments are wrong: text"),
    ('{"action": "scroll", "direction": "sideways"}', "`scroll` arguments are wrong: direction"),
    ('{"action": "click", "coordinate": [1, 2, 3]}', "neither a point"),
    ('[]', "empty list"),
    ('[1, 2]', "must be a JSON object"),
    ('{"action": "wait", "seconds": 500}', "`wait` arguments are wrong"),
    ('{"action": "drag", "index": 1}', "`drag` arguments are wrong"),
    ('{"action": "click", "x": "left", "y": 2}', "`click` arguments are wrong: x"),
]


@pytest.mark.parametrize("answer, actions", MENDED)
def test_unambiguous_damage_is_mended(answer: str, actions: list[A.Action]) -> None:
    assert JsonDialect(VIEW).parse(answer) == actions


@pytest.mark.parametrize("answer, message", REFUSED)
def test_ambiguous_answers_go_back_to_the_model_with_the_reason(answer: str, message: str) -> None:
    with pytest.raises(NoJson, match=message):
        JsonDialect(VIEW).parse(answer)


UITARS_REFUSED = [
    "Thought: I will click.\nAction: click(start_box='(1,2)'",
    "Action: click(start_box=(1,2)",
    "Action:",
    "Action: type(content='no end",
    "Thought: only thinking",
]


@pytest.mark.parametrize("answer", UITARS_REFUSED)
def test_broken_ui_tars_answers_are_refused_not_crashed(answer: str) -> None:
    with pytest.raises(NoJson):
        UiTarsParser(VIEW).parse(answer)


def test_the_corpus_is_big_enough() -> None:
    assert len(MENDED) + len(REFUSED) + len(UITARS_REFUSED) >= 50

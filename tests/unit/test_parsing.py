"""Turning model replies into actions, plans and verdicts — and naming what is wrong."""

from __future__ import annotations

import json

import pytest

from goalbot import actions as A
from goalbot.llm.client import ChatReply, ToolCall
from goalbot.llm.answers import ActionsAnswer
from goalbot.llm.coordinates import Convention, Geometry
from goalbot.llm.dialects import Dialect
from goalbot.llm.parsing import AnswerError, parse_actions, parse_single
from goalbot.llm.tools import PlanAnswer, VerdictAnswer, navigator_tools, tool_schema


def _reply(*calls: tuple[str, object]) -> ChatReply:
    return ChatReply(tool_calls=[
        ToolCall(id=f"c{i}", name=name, arguments=args if isinstance(args, str) else json.dumps(args))
        for i, (name, args) in enumerate(calls)
    ])


def test_several_tool_calls_become_actions_in_order() -> None:
    actions = parse_actions(_reply(
        ("type", {"index": 2, "text": "kimchi", "submit": True}),
        ("select_option", {"index": 4, "option": "Dark"}),
        ("finished", {"success": True, "summary": "done"}),
    ))
    assert actions == [
        A.Type(index=2, text="kimchi", submit=True),
        A.SelectOption(index=4, option="Dark"),
        A.Finished(success=True, summary="done"),
    ]


def test_json_content_from_a_model_without_tool_calls() -> None:
    reply = ChatReply(content='Here you go:\n```json\n[{"name": "click", "index": 3}]\n```')
    geometry = Geometry.for_screenshot((1280, 800))
    answer = ActionsAnswer(geometry, Convention.PIXELS, vision=False)
    # Asked for tool calls, the model wrote JSON: it is read all the same.
    assert answer.parse(reply, Dialect.TOOLS) == [A.Click(index=3)]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (_reply(("fly", {})), "there is no tool `fly`"),
        (_reply(("click", "{index: 1}")), "not valid JSON"),
        (_reply(("click", {"x": 5})), "give an element `index`, or both `x` and `y`"),
        (_reply(("scroll", {"direction": "sideways"})), "direction"),
        (_reply(("type", {"index": 1})), "text"),
        (ChatReply(content="I would click the button."), "no tool call"),
    ],
)
def test_unusable_actions_are_named(reply: ChatReply, message: str) -> None:
    with pytest.raises(AnswerError, match=message):
        parse_actions(reply)


def test_plan_and_verdict() -> None:
    plan = parse_single(_reply(("plan", {"steps": ["a", "b"], "confidence": 0.4})), "plan", PlanAnswer)
    assert plan.steps == ["a", "b"] and plan.confidence == 0.4 and not plan.done
    verdict = parse_single(_reply(("verdict", {"is_valid": False, "reason": "no"})), "verdict", VerdictAnswer)
    assert not verdict.is_valid
    with pytest.raises(AnswerError, match="only tool here is `plan`"):
        parse_single(_reply(("click", {"index": 1})), "plan", PlanAnswer)
    # A confidence past its range is read as meant (7 as 7 %); one that is no number is refused by name.
    assert parse_single(_reply(("plan", {"steps": ["a"], "confidence": 7})), "plan", PlanAnswer).confidence == 0.07
    with pytest.raises(AnswerError, match="confidence"):
        parse_single(_reply(("plan", {"steps": ["a"], "confidence": "high"})), "plan", PlanAnswer)


def test_tool_schemas_follow_the_protocol() -> None:
    names = {t["function"]["name"] for t in navigator_tools()}
    assert {"click", "double_click", "right_click", "hover", "drag", "scroll", "type", "key",
            "hotkey", "select_option", "navigate", "go_back", "switch_tab", "close_tab", "upload_file",
            "wait", "save_data", "extract", "choose",
            "call_user", "finished"} == names
    plan = tool_schema("plan", PlanAnswer)["function"]["parameters"]["properties"]
    assert {"observation", "reasoning", "done", "web_task", "steps", "final_answer",
            "progress_percent", "confidence", "question", "policies", "first_actions", "long_steps"} == set(plan)
    click = next(t for t in navigator_tools() if t["function"]["name"] == "click")["function"]
    assert "name" not in click["parameters"]["properties"] and click["description"]
    assert click["parameters"]["properties"]["index"] == {
        "type": "integer", "description": "Element index from the latest observation.",
    }


def test_tool_schemas_are_plain_enough_for_local_servers() -> None:
    text = json.dumps(navigator_tools() + [tool_schema("plan", PlanAnswer)])
    assert "$ref" not in text and "anyOf" not in text and '"title"' not in text
    scroll = next(t for t in navigator_tools() if t["function"]["name"] == "scroll")["function"]
    assert scroll["parameters"]["properties"]["direction"]["enum"] == ["up", "down", "left", "right"]

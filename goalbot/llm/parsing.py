"""Turn a model's reply into typed answers, or say precisely what was wrong with it."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from goalbot.actions import ACTION_ADAPTER, ACTIONS_BY_NAME, Action, present
from goalbot.llm.client import ChatReply
from goalbot.llm.repair import NoJson, find_json, whole_text

T = TypeVar("T", bound=BaseModel)

class AnswerError(Exception):
    """The reply cannot be used; the message is written for the model to correct itself."""


def _loads(text: str, what: str) -> Any:
    try:
        return whole_text(json.loads(text)) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise AnswerError(f"the arguments of `{what}` are not valid JSON ({exc.msg})") from exc
    except (ValueError, RecursionError) as exc:  # numbers too long, nesting too deep
        raise AnswerError(f"the arguments of `{what}` cannot be read ({type(exc).__name__})") from exc


def _json_in_text(text: str) -> Any | None:
    """A JSON value written as plain content, fenced or bare, by models that skip tool calls."""
    try:
        return find_json(text)
    except NoJson:
        return None


def _brief(errors: ValidationError) -> str:
    parts = []
    for err in errors.errors()[:4]:
        where = ".".join(str(p) for p in err["loc"] if not isinstance(p, int) or p) or "answer"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def parse_single(reply: ChatReply, tool: str, model: type[T]) -> T:
    """The answer of a role that offers exactly one tool (the planner's plan, the verdict)."""
    if reply.tool_calls:
        calls = [c for c in reply.tool_calls if c.name == tool]
        if not calls:
            names = ", ".join(f"`{c.name}`" for c in reply.tool_calls)
            raise AnswerError(f"called {names}, but the only tool here is `{tool}`")
        arguments = _loads(calls[0].arguments, tool)
    else:
        arguments = _json_in_text(reply.content)
        if arguments is None:
            raise AnswerError(f"no tool call: answer by calling `{tool}`")
    if not isinstance(arguments, dict):
        raise AnswerError(f"the arguments of `{tool}` must be a JSON object")
    try:
        return model.model_validate(present(arguments, model))
    except ValidationError as exc:
        raise AnswerError(f"`{tool}` arguments are wrong: {_brief(exc)}") from exc


def parse_actions(reply: ChatReply) -> list[Action]:
    """The navigator's tool calls: one or more actions, run in order."""
    if not reply.tool_calls:
        raise AnswerError("no tool call: answer by calling one or more action tools")
    raw = [(c.name, _loads(c.arguments, c.name)) for c in reply.tool_calls]
    actions: list[Action] = []
    for name, arguments in raw:
        if not isinstance(arguments, dict):
            raise AnswerError(f"the arguments of `{name}` must be a JSON object")
        try:
            known = ACTIONS_BY_NAME.get(name)
            actions.append(ACTION_ADAPTER.validate_python(
                {**(present(arguments, known) if known else arguments), "name": name}))
        except ValidationError as exc:
            if any(e["type"] == "union_tag_invalid" for e in exc.errors()):
                raise AnswerError(f"there is no tool `{name}`") from exc
            raise AnswerError(f"`{name}` arguments are wrong: {_brief(exc)}") from exc
    return actions

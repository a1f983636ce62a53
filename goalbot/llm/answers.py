"""What each role must answer, in each dialect: the tools offered, the instructions added to the
system prompt, the reminder sent with a correction, and the parser that yields typed answers."""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from string import Template
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from goalbot.actions import ACTION_TYPES, Action, action_name
from goalbot.llm.authored import prompt_file
from goalbot.llm.client import ChatReply
from goalbot.llm.coordinates import Convention, Geometry
from goalbot.llm.dialects import Dialect
from goalbot.llm.jsonactions import JsonDialect
from goalbot.llm.parsing import AnswerError, parse_actions, parse_single
from goalbot.llm.repair import NoJson
from goalbot.llm.tools import flat_schema, navigator_tools, tool_schema
from goalbot.llm.uitars import UiTarsParser

T = TypeVar("T", covariant=True)
M = TypeVar("M", bound=BaseModel)


def _template(name: str) -> Template:
    return Template(files("goalbot.llm").joinpath("prompts", name).read_text(encoding="utf-8"))


class AnswerSpec(Protocol[T]):
    def tools(self, dialect: Dialect) -> list[dict[str, Any]]: ...
    def instructions(self, dialect: Dialect) -> str: ...
    def reminder(self, dialect: Dialect) -> str: ...
    def parse(self, reply: ChatReply, dialect: Dialect) -> T: ...
    def response_schema(self, dialect: Dialect) -> dict[str, Any] | None: ...


class ObjectAnswer(Generic[M]):
    """One object, as the arguments of a single tool (`plan`, `verdict`) or as JSON text."""

    def __init__(self, tool: str, model: type[M]) -> None:
        self.tool = tool
        self.model = model

    @functools.cached_property
    def _schema(self) -> str:
        return json.dumps(flat_schema(self.model), ensure_ascii=False)

    def tools(self, dialect: Dialect) -> list[dict[str, Any]]:
        return [tool_schema(self.tool, self.model)] if dialect is Dialect.TOOLS else []

    def instructions(self, dialect: Dialect) -> str:
        if dialect is Dialect.TOOLS:
            return ""
        return _template("answer-object.md").substitute(tool=self.tool, schema=self._schema)

    def reminder(self, dialect: Dialect) -> str:
        if dialect is Dialect.TOOLS:
            return f"Call `{self.tool}` once, with arguments matching this schema: {self._schema}"
        return f"Answer with one JSON object matching this schema, and nothing else: {self._schema}"

    def parse(self, reply: ChatReply, dialect: Dialect) -> M:
        return parse_single(reply, self.tool, self.model)

    def response_schema(self, dialect: Dialect) -> dict[str, Any] | None:
        """Every field required: under a grammar, a field left optional is a field a small model
        leaves out (`{}` is the shortest answer that fits)."""
        if dialect is not Dialect.STRUCTURED:
            return None
        schema = flat_schema(self.model)
        properties = {name: bounded(field) for name, field in schema.get("properties", {}).items()}
        return {**schema, "properties": properties, "required": list(properties)}


def bounded(field: dict[str, Any]) -> dict[str, Any]:
    """`field` with its range written as the values it may take: the grammars servers make of a
    schema (llama.cpp's among them) drop `minimum` and `maximum`, so a confidence of 5 fits them,
    while an `enum` they keep. A number between 0 and 1 is given in tenths; an integer range of at
    most 101 values, whole."""
    low, high, kind = field.get("minimum"), field.get("maximum"), field.get("type")
    if low is None or high is None or "enum" in field:
        return field
    if kind == "integer" and high - low <= 100:
        return {**field, "enum": list(range(int(low), int(high) + 1))}
    if kind == "number" and (low, high) == (0, 1):
        return {**field, "enum": [tenth / 10 for tenth in range(11)]}
    return field


DATA_ACTIONS = frozenset({"extract", "choose"})  # offered only when a run has data to read or pick


def action_signatures(data: bool = True) -> str:
    """One line per action, `click(index | x, y)`, for prompts and corrections in any dialect."""
    lines = []
    for cls in ACTION_TYPES:
        if not data and action_name(cls) in DATA_ACTIONS:
            continue
        fields = [field.alias or name for name, field in cls.model_fields.items() if name != "name"]
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        lines.append(f"- {action_name(cls)}({', '.join(fields)}): {doc}")
    return "\n".join(lines)


def map_points(action: Action, geometry: Geometry, convention: Convention) -> Action:
    """Coordinates of a tool call are about the screenshot sent; actions need target pixels."""
    update: dict[str, float] = {}
    for x_key, y_key in (("x", "y"), ("to_x", "to_y")):
        x, y = getattr(action, x_key, None), getattr(action, y_key, None)
        if x is not None and y is not None:
            update[x_key], update[y_key] = geometry.to_target(x, y, convention)
    return action.model_copy(update=update) if update else action


class ActionsAnswer:
    """The navigator's answer: actions, run in order, with coordinates mapped onto the target.

    `data`: `extract` and `choose` are offered, with the prompt's paragraph on them. Left out, a
    request is a fifth shorter; a model that calls them anyway is still understood.
    """

    def __init__(self, geometry: Geometry, convention: Convention, vision: bool, data: bool = True) -> None:
        self.geometry = geometry
        self.convention = convention
        self.vision = vision
        self.data = data

    def tools(self, dialect: Dialect) -> list[dict[str, Any]]:
        if dialect is not Dialect.TOOLS:
            return []
        tools = navigator_tools()
        return tools if self.data else [t for t in tools if t["function"]["name"] not in DATA_ACTIONS]

    def _coordinates(self) -> str:
        g = self.geometry
        if self.convention is Convention.RELATIVE_1000:
            return "relative: 0 to 1000 across the width and down the height of the screenshot"
        if self.convention is Convention.NORMALISED:
            return "fractions: 0 to 1 across the width and down the height of the screenshot"
        picture = "screenshot" if self.vision else "viewport"
        return f"pixels of the {picture}, which is {g.image_width}×{g.image_height}"

    def instructions(self, dialect: Dialect) -> str:
        data = "\n" + prompt_file("navigator-data") if self.data and dialect is not Dialect.UITARS else ""
        name = {Dialect.UITARS: "answer-uitars.md", Dialect.JSON: "answer-actions-json.md",
                Dialect.STRUCTURED: "answer-actions-json.md"}.get(dialect)
        if name is None:
            return data
        return data + _template(name).substitute(actions=action_signatures(self.data),
                                                        coordinates=self._coordinates())

    def reminder(self, dialect: Dialect) -> str:
        if dialect is Dialect.UITARS:
            return ("Answer as `Thought: …` then `Action: …`, using only these actions: "
                    "click, left_double, right_single, drag, hotkey, type, scroll, wait, navigate, "
                    "navigate_back, finished, call_user.")
        shape = "call one or more of these tools" if dialect is Dialect.TOOLS else (
            'answer with a JSON list of actions such as [{"action": "click", "index": 3}]')
        return f"Please {shape}:\n{action_signatures(self.data)}"

    def response_schema(self, dialect: Dialect) -> dict[str, Any] | None:
        """`{"actions": [...]}`, each action one of the tools' shapes named by `action`: a grammar
        lets the model write nothing else."""
        if dialect is not Dialect.STRUCTURED:
            return None
        shapes = []
        for tool in navigator_tools():
            function = tool["function"]
            if not self.data and function["name"] in DATA_ACTIONS:
                continue
            parameters = function["parameters"]
            shapes.append({"type": "object",
                           "properties": {"action": {"const": function["name"]}, **parameters.get("properties", {})},
                           "required": ["action", *parameters.get("required", [])]})
        return {"type": "object", "required": ["actions"],
                "properties": {"actions": {"type": "array", "minItems": 1, "items": {"anyOf": shapes}}}}

    def parse(self, reply: ChatReply, dialect: Dialect) -> list[Action]:
        if dialect is Dialect.TOOLS and reply.tool_calls:
            return [map_points(a, self.geometry, self.convention) for a in parse_actions(reply)]
        return self.parse_text(reply.content, dialect)

    def parse_text(self, content: str, dialect: Dialect) -> list[Action]:
        uitars = UiTarsParser(self.geometry, self.convention)
        as_json = JsonDialect(self.geometry, self.convention)
        # A model may ignore the dialect it was asked for; read what it wrote, but blame the
        # dialect it was asked for when neither reading works.
        first, second = (uitars, as_json) if dialect is Dialect.UITARS else (as_json, uitars)
        if dialect is not Dialect.UITARS and "Action:" in content:
            first, second = second, first
        try:
            return first.parse(content)
        except NoJson as exc:
            try:
                return second.parse(content)
            except NoJson:
                pass
            if not content.strip():
                raise AnswerError("the answer is empty") from exc
            raise AnswerError(str(exc)) from exc

"""Tool schemas offered to each role, and the typed answers they come back as."""

from __future__ import annotations

import functools
import inspect
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from goalbot.actions import ACTION_ADAPTER, ACTION_TYPES, action_name


def _as_share(value: Any) -> Any:
    """A confidence out of its range read as the model most likely meant it: 90 as 90 %, and
    anything else beyond either end as that end. A reading too low is the safe side to err on:
    it asks the person rather than skipping a check."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        share = value / 100 if 1 < value <= 100 else value
        return min(1.0, max(0.0, share))
    return value


def _as_percent(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return min(100, max(0, round(value)))
    return value


Confidence = Annotated[float, Field(ge=0, le=1), BeforeValidator(_as_share)]
Percent = Annotated[int, Field(ge=0, le=100), BeforeValidator(_as_percent)]


class PlanAnswer(BaseModel):
    """Report what you see and the short-term-goal steps that remain to reach the goal."""

    observation: str = Field("", description="What the current page shows, briefly.")
    reasoning: str = Field("", description="Why these steps.")
    done: bool = Field(False, description="True when the goal is already reached.")
    web_task: bool = Field(True, description="False when the goal needs no browser at all.")
    steps: list[str] = Field(default_factory=list, description="Remaining steps, in order.")
    final_answer: str = Field("", description="The answer to the goal, when done.")
    question: str = Field("", description="Only when the goal lacks what only the person knows "
                                          "(which site? which account?): ask it here, with no steps.")
    policies: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Only when the goal says how to pick among candidates (cheapest, "
        "under a price, in stock, best rated): a choice policy per pick, by name: {\"hard\": [{\"field\", "
        "\"op\", \"value\"}], \"score\": [{\"when\": {…}, \"add\": N}], \"tie_break\": [\"price_asc\"], "
        "\"pick\": \"argmax\"}; ops == != < <= > >= in not_in contains matches exists.")
    first_actions: list[dict[str, Any]] = Field(
        default_factory=list, description="Only for a plan of one step the current page already lets you carry "
        "out: its actions as the Navigator calls them, e.g. [{\"action\": \"type\", \"index\": 4, \"text\": \"Bob\"}, "
        "{\"action\": \"click\", \"index\": 5}, {\"action\": \"finished\"}].")
    long_steps: list[int] = Field(default_factory=list, description="Numbers (from 1) of steps that take many "
                                  "actions, such as a long form: each gets twice the Navigator's turns.")
    progress_percent: Percent = 0
    confidence: Confidence = 0.5

    @model_validator(mode="after")
    def _says_something(self) -> PlanAnswer:
        # An empty plan is an unusable answer to ask again for, not a plan to stop on.
        if self.web_task and not (self.steps or self.done or self.question):
            raise ValueError("give the `steps` that remain, or `done: true`, or a `question` for the person")
        return self


class PatchOp(BaseModel):
    """One change to the recipe; `step` numbers the recipe's actions from 1."""

    op: Literal["replace_target", "insert_actions", "remove_step", "update_expect"]
    step: int | None = Field(None, ge=1, description="replace_target, remove_step, update_expect: the step.")
    index: int | None = Field(None, ge=1, description="replace_target: the element on this page.")
    before_step: int | None = Field(None, ge=1, description="insert_actions: the step they run before.")
    actions: list[dict[str, Any]] = Field(default_factory=list,
                                          description="insert_actions: actions as the navigator writes them.")
    expect: dict[str, str] | None = Field(None, description="update_expect: url_contains and/or value.")

    @model_validator(mode="after")
    def _complete(self) -> PatchOp:
        needs = {"replace_target": ("step", "index"), "insert_actions": ("before_step", "actions"),
                 "remove_step": ("step",), "update_expect": ("step", "expect")}[self.op]
        missing = [name for name in needs if not getattr(self, name)]
        if missing:
            raise ValueError(f"{self.op} needs {', '.join(missing)}")
        for action in self.actions:
            ACTION_ADAPTER.validate_python(action)  # each must be an action the navigator could write
        return self


class PatchAnswer(BaseModel):
    """Patch the recipe so its failed step can run on the page as it is now; change nothing else."""

    ops: list[PatchOp] = Field(min_length=1)
    reason: str = ""


class MatchAnswer(BaseModel):
    """Whether the recipe does the goal, only with other values; and those values."""

    same: bool = Field(description="true when the recipe does what the goal asks, with other values at most")
    values: dict[str, str] = Field(default_factory=dict, description="each variable's value, as the goal says it")
    reason: str = ""


class VerdictAnswer(BaseModel):
    """Judge, from the evidence, whether the step (or the whole goal) was achieved."""

    is_valid: bool
    reason: str
    answer: str = ""
    confidence: Confidence = 0.5


def _plain(node: Any, defs: dict[str, Any]) -> Any:
    """A schema small models and local servers understand: no $ref, no `null` alternatives, no titles.

    An optional argument is simply left out, so `anyOf [T, null]` with `default: null` says no more
    than `T`; several OpenAI-compatible servers reject or mis-handle `$ref` and `anyOf`.
    """
    if isinstance(node, list):
        return [_plain(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        return _plain({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    options = node.get("anyOf")
    if options and {"type": "null"} in options and len(options) == 2:
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if "default" in rest and rest["default"] is None:
            del rest["default"]
        kept = next(o for o in options if o != {"type": "null"})
        return _plain({**kept, **rest}, defs)
    return {
        k: _plain(v, defs) for k, v in node.items()
        if k != "$defs" and not (k == "title" and isinstance(v, str))  # a property may be named title
    }


def flat_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as the model is shown it: flat, without goalbot's `name` tag."""
    schema = model.model_json_schema()
    schema.pop("description", None)
    schema["properties"].pop("name", None)
    if "required" in schema:
        schema["required"] = [r for r in schema["required"] if r != "name"]
    return _plain(schema, schema.get("$defs", {}))


@functools.cache  # built when first sent, not on import: a tenth of a second of every start
def tool_schema(name: str, model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": inspect.cleandoc(model.__doc__ or ""),
            "parameters": flat_schema(model),
        },
    }


def navigator_tools() -> list[dict[str, Any]]:
    """One tool per action; shared, so never changed by whoever sends them."""
    return [tool_schema(action_name(cls), cls) for cls in ACTION_TYPES]

"""Tool schemas offered to each role, and the typed answers they come back as."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from goalbot.actions import ACTION_TYPES, action_name


class PlanAnswer(BaseModel):
    """Report what you see and the short-term-goal steps that remain to reach the goal."""

    observation: str = Field("", description="What the current page shows, briefly.")
    reasoning: str = Field("", description="Why these steps.")
    done: bool = Field(False, description="True when the goal is already reached.")
    web_task: bool = Field(True, description="False when the goal needs no browser at all.")
    steps: list[str] = Field(default_factory=list, description="Remaining steps, in order.")
    final_answer: str = Field("", description="The answer to the goal, when done.")
    progress_percent: int = Field(0, ge=0, le=100)
    confidence: float = Field(0.5, ge=0, le=1)


class VerdictAnswer(BaseModel):
    """Judge, from the evidence, whether the step (or the whole goal) was achieved."""

    is_valid: bool
    reason: str
    answer: str = ""
    confidence: float = Field(0.5, ge=0, le=1)


def _tool(name: str, model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    properties = schema.get("properties", {})
    properties.pop("name", None)
    for prop in properties.values():
        prop.pop("title", None)
    if "required" in schema:
        schema["required"] = [r for r in schema["required"] if r != "name"]
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": (model.__doc__ or "").strip(),
            "parameters": schema,
        },
    }


PLANNER_TOOLS = [_tool("plan", PlanAnswer)]
VALIDATOR_TOOLS = [_tool("verdict", VerdictAnswer)]
NAVIGATOR_TOOLS = [_tool(action_name(cls), cls) for cls in ACTION_TYPES]

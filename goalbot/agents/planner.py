"""The Planner: splits the goal into short-term-goal steps and re-plans when one fails."""

from __future__ import annotations

from goalbot.agents.context import bullet_list, untrusted_page
from goalbot.llm.client import ModelClient
from goalbot.llm.dialogue import ask, prompt
from goalbot.llm.parsing import parse_single
from goalbot.llm.tools import PLANNER_TOOLS, PlanAnswer
from goalbot.operators.base import Observation


class Planner:
    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def plan(
        self,
        goal: str,
        observation: Observation,
        history: list[str],
        feedback: str | None,
        step: int | None,
    ) -> PlanAnswer:
        parts = [f"Goal: {goal}", "What happened so far:\n" + bullet_list(history)]
        if feedback:
            parts.append(f"Why a new plan is needed: {feedback}")
        parts.append(untrusted_page(observation))
        messages = [
            {"role": "system", "content": prompt("planner")},
            {"role": "user", "content": "\n\n".join(parts)},
        ]
        return await ask(
            self.client, "planner", messages, PLANNER_TOOLS,
            lambda reply: parse_single(reply, "plan", PlanAnswer), step,
        )

"""The Planner: splits the goal into short-term-goal steps and re-plans when one fails."""

from __future__ import annotations

from typing import Any

from goalbot.agents.context import HISTORY_LINES, bullet_list, recent, untrusted_page, with_picture
from goalbot.llm.answers import ObjectAnswer
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.tools import PlanAnswer
from goalbot.llm.vision import Picture, user_message
from goalbot.operators.base import Observation

PLAN = ObjectAnswer("plan", PlanAnswer)


class Planner:
    def __init__(self, dialogue: Dialogue) -> None:
        self.dialogue = dialogue

    async def plan(
        self,
        goal: str,
        observation: Observation,
        history: list[str],
        feedback: str | None,
        step: int | None,
        picture: Picture | None = None,
        clarifications: list[str] | None = None,
    ) -> PlanAnswer:
        def compose(level: int) -> list[dict[str, Any]]:
            lines = recent(history, level, cap=HISTORY_LINES)
            parts = [f"Goal: {goal}"]
            if clarifications:  # the person's own words: they belong with the goal, never cut
                parts.append("The person clarified:\n" + bullet_list(clarifications))
            parts.append("What happened so far:\n" + bullet_list(lines))
            if feedback:
                parts.append(f"Why a new plan is needed: {feedback}")
            parts.append(untrusted_page(observation, level))
            return [user_message("\n\n".join(parts), with_picture(picture, level))]

        return await self.dialogue.ask("planner", compose, PLAN, step)

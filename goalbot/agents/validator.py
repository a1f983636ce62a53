"""The Validator: judges a finished step, or the whole goal, against the page as it is now."""

from __future__ import annotations

from typing import Any

from goalbot.agents.context import bullet_list, recent, untrusted_page, with_picture
from goalbot.llm.answers import ObjectAnswer
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.tools import VerdictAnswer
from goalbot.llm.vision import Picture, user_message
from goalbot.operators.base import Observation

VERDICT = ObjectAnswer("verdict", VerdictAnswer)


class Validator:
    def __init__(self, dialogue: Dialogue) -> None:
        self.dialogue = dialogue

    async def judge(
        self,
        target: str,
        final: bool,
        evidence: list[str],
        saved_data: dict[str, str],
        observation: Observation,
        step: int | None,
        picture: Picture | None = None,
    ) -> VerdictAnswer:
        what = "The whole goal" if final else "The step"

        def compose(level: int) -> list[dict[str, Any]]:
            parts = [
                f"{what} to judge: {target}",
                "What was done and reported:\n" + bullet_list(recent(evidence, level)),
            ]
            if saved_data:  # the data is the result itself: never cut
                parts.append("Data saved:\n" + bullet_list([f"{k}: {v}" for k, v in saved_data.items()]))
            parts.append(untrusted_page(observation, level))
            return [user_message("\n\n".join(parts), with_picture(picture, level))]

        return await self.dialogue.ask("validator", compose, VERDICT, step)

"""The matcher: one small model call for a typed goal whose words did not surely fit a recipe's
goal (`recipes.finding` said why) — does the recipe do it with other values, and which? Its
answer is a proposal the person approves or turns down, never a rerun by itself."""

from __future__ import annotations

import json
from typing import Any

from goalbot.llm.answers import ObjectAnswer
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.tools import MatchAnswer
from goalbot.llm.vision import user_message

MATCH = ObjectAnswer("match", MatchAnswer)


async def bind(dialogue: Dialogue, goal: str, template: str, variables: list[str], given: dict[str, str],
               why: str) -> MatchAnswer:
    """The matcher's answer, its values cut to the recipe's variables; `same` False when it left
    one unbound. Raises AnswerError or ModelError when no usable answer comes."""
    asked = json.dumps({"goal": goal, "recipe_goal": template, "variables": variables, "given": given,
                        "unsure_because": why}, ensure_ascii=False)

    def compose(_level: int) -> list[dict[str, Any]]:
        return [user_message(asked, None)]

    answer = await dialogue.ask("matcher", compose, MATCH, None)
    values = {name: answer.values.get(name, "").strip() for name in variables}
    values.update(given)  # what the person gave wins over what the model read
    if answer.same and not all(values.values()):
        unbound = ", ".join(name for name, value in values.items() if not value)
        return MatchAnswer(same=False, values=values, reason=f"the matcher left {unbound} unbound")
    return answer.model_copy(update={"values": values})

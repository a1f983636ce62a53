"""The Validator: judges a finished step, or the whole goal, against the page as it is now."""

from __future__ import annotations

from goalbot.agents.context import bullet_list, untrusted_page
from goalbot.llm.client import ModelClient
from goalbot.llm.dialogue import ask, prompt
from goalbot.llm.parsing import parse_single
from goalbot.llm.tools import VALIDATOR_TOOLS, VerdictAnswer
from goalbot.operators.base import Observation


class Validator:
    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def judge(
        self,
        target: str,
        final: bool,
        evidence: list[str],
        saved_data: dict[str, str],
        observation: Observation,
        step: int | None,
    ) -> VerdictAnswer:
        what = "The whole goal" if final else "The step"
        parts = [
            f"{what} to judge: {target}",
            "What was done and reported:\n" + bullet_list(evidence),
        ]
        if saved_data:
            parts.append("Data saved:\n" + bullet_list([f"{k}: {v}" for k, v in saved_data.items()]))
        parts.append(untrusted_page(observation))
        messages = [
            {"role": "system", "content": prompt("validator")},
            {"role": "user", "content": "\n\n".join(parts)},
        ]
        return await ask(
            self.client, "validator", messages, VALIDATOR_TOOLS,
            lambda reply: parse_single(reply, "verdict", VerdictAnswer), step,
        )

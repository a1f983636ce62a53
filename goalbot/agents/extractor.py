"""The Extractor: the data a goal asked for, read off the page and shaped by the person's JSON
Schema (`--output-schema`). One repair carries the validation errors back to the model; what
still does not fit is reported with every error, never patched up."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from goalbot.agents.context import untrusted_page
from goalbot.llm.client import ModelClient
from goalbot.llm.dialects import DialectChoice
from goalbot.llm.dialogue import Dialogue
from goalbot.llm.extraction import SchemaAnswer, problems
from goalbot.llm.parsing import AnswerError
from goalbot.operators.base import Observation

REPAIRS = 1


class Extracted(BaseModel):
    data: Any = None
    valid: bool
    errors: list[str] = Field(default_factory=list)


class Extractor:
    def __init__(self, client: ModelClient, dialects: DialectChoice) -> None:
        self.dialogue = Dialogue(client, dialects, retries=REPAIRS)

    async def extract(self, instruction: str, schema: dict[str, Any], observation: Observation,
                      step: int | None) -> Extracted:
        answer = SchemaAnswer(schema)
        shape = json.dumps(schema, ensure_ascii=False)

        def compose(level: int) -> list[dict[str, Any]]:
            return [{"role": "user", "content": (f"Instruction: {instruction}\n\nThe answer's JSON Schema:\n{shape}"
                                                 f"\n\n{untrusted_page(observation, level)}")}]

        try:
            data = await self.dialogue.ask("extractor", compose, answer, step)
        except AnswerError as exc:
            errors = problems(answer.last, schema) if answer.last is not None else [str(exc)]
            return Extracted(data=answer.last, valid=False, errors=errors or [str(exc)])
        return Extracted(data=data, valid=True)

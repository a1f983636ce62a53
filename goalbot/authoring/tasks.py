"""A task of the bank: what an authoring role was shown, and what is known of a good answer —
the answer that worked, the elements it used, the answers a person or a rerun turned down."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from goalbot.llm.profiles import Program

_ELEMENT_LINE = re.compile(r'^\s*\*?\[(\d+)\]\s+(\S+)\s*(?:"((?:[^"\\]|\\.)*)")?', re.MULTILINE)


class Task(BaseModel):
    id: str
    program: Program
    source: str = Field(description='Where it came from: "session S", "tasks.jsonl line 3".')
    inputs: dict[str, str] = Field(description="workflow: goal, page · policy: goal · patch: failure, page.")
    gold: dict[str, Any] = Field(default_factory=dict, description="What is known of a good answer.")
    avoid: list[Any] = Field(default_factory=list, description="Answers that were tried and turned down.")
    answer: str | None = Field(None, description="An answer that worked, as the program writes it: an example.")


@dataclass(frozen=True)
class PageElement:
    index: int
    role: str
    name: str

    def same(self, role: str, name: str) -> bool:
        return self.role.lower() == role.lower() and self.name.strip().lower() == name.strip().lower()

    def words(self) -> str:
        return f'{self.role} "{self.name}"'


def page_elements(page: str) -> dict[int, PageElement]:
    """The interactive elements of a page as the roles are shown it: `[7] button "Menu"`."""
    return {int(index): PageElement(int(index), role, name or "")
            for index, role, name in _ELEMENT_LINE.findall(page)}

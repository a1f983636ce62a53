"""A task of the bank: what an authoring role was shown, and what is known of a good answer —
the answer that worked, the elements it used, the answers a person or a rerun turned down."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from goalbot.llm.profiles import Program

# `[3] textbox type=email "Email"`: the role, then the first quoted text is the name.
_ELEMENT_LINE = re.compile(r'^\s*\*?\[(\d+)\]\s+(\S+)[^"\n]*(?:"((?:[^"\\\n]|\\.)*)")?', re.MULTILINE)


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
    return {int(index): PageElement(int(index), role, _unquoted(name))
            for index, role, name in _ELEMENT_LINE.findall(page)}


def _unquoted(name: str) -> str:
    """Names are shown as JSON strings: `"a \\"b\\" c"` is a "b" c."""
    try:
        return str(json.loads(f'"{name}"'))
    except ValueError:
        return name

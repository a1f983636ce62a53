"""What every operator offers the agents, and the observation they hand back."""

from __future__ import annotations

import json
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from goalbot.actions import Action, ActionResult


class Element(BaseModel):
    kind: Literal["element"] = "element"
    index: int
    role: str
    name: str = ""
    value: str | None = None
    placeholder: str | None = None
    input_type: str | None = None
    options: list[str] | None = None
    states: list[str] = Field(default_factory=list)

    def line(self) -> str:
        parts = [f"[{self.index}]", self.role]
        if self.input_type:
            parts.append(f"type={self.input_type}")
        parts.append(json.dumps(self.name, ensure_ascii=False))
        if self.value:
            parts.append(f"value={json.dumps(self.value, ensure_ascii=False)}")
        if self.placeholder:
            parts.append(f"placeholder={json.dumps(self.placeholder, ensure_ascii=False)}")
        if self.options:
            parts.append("options=" + json.dumps(self.options, ensure_ascii=False))
        parts.extend(self.states)
        return " ".join(parts)


class Text(BaseModel):
    kind: Literal["text"] = "text"
    text: str
    heading: int = 0
    alert: bool = False

    def line(self) -> str:
        if self.heading:
            return f"{'#' * self.heading} {self.text}"
        if self.alert:
            return f"! {self.text}"
        return self.text


class Observation(BaseModel):
    """What the navigator sees: page facts, then elements and text in document order."""

    url: str
    title: str
    tabs: list[str] = Field(default_factory=list)
    current_tab: int = 1
    scroll_y: int = 0
    scroll_height: int = 0
    viewport_height: int = 0
    viewport_width: int = 0
    device_pixel_ratio: float = 1.0
    items: list[Element | Text] = Field(default_factory=list)
    screenshot: bytes | None = Field(default=None, exclude=True, repr=False)

    @property
    def elements(self) -> dict[int, Element]:
        return {item.index: item for item in self.items if isinstance(item, Element)}

    def render(self) -> str:
        lines = [f"URL: {self.url}", f"Title: {self.title}"]
        if len(self.tabs) > 1:
            tabs = ", ".join(f"{i}: {t}" for i, t in enumerate(self.tabs, 1))
            lines.append(f"Tabs: {tabs} (current: {self.current_tab})")
        if self.scroll_height > self.viewport_height > 0:
            below = max(0, self.scroll_height - self.scroll_y - self.viewport_height)
            lines.append(f"Scroll: {self.scroll_y}px from top, {below}px more below")
        lines.append("Elements and text:")
        lines.extend(item.line() for item in self.items)
        if not self.elements:
            lines.append("(no interactive elements visible)")
        return "\n".join(lines)


class OperatorError(Exception):
    """The operator cannot go on (no browser, browser gone); the message is for the person."""


class Operator(Protocol):
    name: str

    async def start(self, url: str | None) -> None: ...

    async def observe(self, screenshot: bool = True) -> Observation: ...

    async def execute(self, action: Action) -> ActionResult: ...

    async def close(self) -> None: ...

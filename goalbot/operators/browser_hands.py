"""What the browser's action helpers (pointer, scroll, typing, widgets, evidence) may use of the
operator: the page, the latest observation's elements, the effect probe and the settling after
input. They depend on this, not on the operator, so the operator imports them and nothing
imports the operator back."""

from __future__ import annotations

from typing import Protocol

from playwright.async_api import ElementHandle, Page

from goalbot.operators.browser_effects import EffectProbe
from goalbot.operators.browser_observe import Target


class BrowserHands(Protocol):
    @property
    def page(self) -> Page: ...

    @property
    def targets(self) -> list[Target]:
        """Where each element of the latest observation lives: `[n]` is `targets[n - 1]`."""
        ...

    @property
    def probe(self) -> EffectProbe: ...

    async def element(self, index: int) -> ElementHandle:
        """The element `[index]` of the latest observation; ActionFailed when it is not there."""
        ...

    async def ready_for_pointer(self, index: int) -> ElementHandle:
        """The element, scrolled into view, or ActionFailed saying why a person could not point at it."""
        ...

    async def after_input(self) -> None:
        """After a key or a choice: a navigation it starts a moment later is waited for."""
        ...

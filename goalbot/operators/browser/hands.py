"""What the browser's action helpers (pointer, scroll, keyboard, widgets, evidence) may use of the
operator: the page, the latest observation's elements, the effect probe and the settling after
input. They depend on this, not on the operator, so the operator imports them and nothing
imports the operator back."""

from __future__ import annotations

from typing import Protocol

from playwright.async_api import Page

from goalbot.operators.browser.effects import EffectProbe
from goalbot.operators.browser.elements import Elements


class BrowserHands(Protocol):
    @property
    def page(self) -> Page: ...

    @property
    def elements(self) -> Elements:
        """The latest observation's elements: `[n]` as a handle, ready for the pointer or not."""
        ...

    @property
    def probe(self) -> EffectProbe: ...

    async def after_input(self) -> None:
        """After a key or a choice: a navigation it starts a moment later is waited for."""
        ...

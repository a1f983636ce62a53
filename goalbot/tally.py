"""What a session's model calls came to, folded from its events."""

from __future__ import annotations

from pydantic import BaseModel, Field

from goalbot.events import Event, EventType
from goalbot.payloads import LlmCallData


class Tally(BaseModel):
    """What a session's model calls came to. `add` is the one place an event's usage is counted:
    the store, the dashboard and the report all fold events through it."""

    calls: int = 0
    errors: int = Field(0, description="Failed attempts (LLM_ERROR), retried or not.")
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = Field(None, description="None until a call to a model with a known price.")

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def add(self, event: Event) -> bool:
        """Counts `event` in; False when it says nothing about model usage."""
        if event.type is EventType.LLM_CALL:
            call = event.data_of(LlmCallData)
            self.calls += 1
            self.tokens_in += call.tokens_in
            self.tokens_out += call.tokens_out
            if call.cost_usd is not None:
                self.cost_usd = (self.cost_usd or 0.0) + call.cost_usd
            return True
        if event.type is EventType.LLM_ERROR:
            self.errors += 1
            return True
        return False

    @classmethod
    def of(cls, events: list[Event]) -> Tally:
        tally = cls()
        for event in events:
            tally.add(event)
        return tally

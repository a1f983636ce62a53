"""What the run has spent on the model — calls, tokens, dollars — and the limits the person set."""

from __future__ import annotations

import tomllib
from importlib.resources import files

from pydantic import BaseModel, Field

from goalbot.tally import Tally


class Price(BaseModel):
    input: float = Field(ge=0, description="US dollars per million prompt tokens.")
    output: float = Field(ge=0, description="US dollars per million completion tokens.")


def bundled_prices() -> dict[str, Price]:
    text = files("goalbot.llm").joinpath("prices.toml").read_text(encoding="utf-8")
    return {name: Price.model_validate(entry) for name, entry in tomllib.loads(text).items()}


class PriceTable:
    def __init__(self, extra: dict[str, Price] | None = None) -> None:
        self.prices = {**bundled_prices(), **(extra or {})}

    def price_of(self, model: str) -> Price | None:
        for name in (model, model.rsplit("/", 1)[-1]):  # "openai/gpt-4o" on OpenRouter
            if name in self.prices:
                return self.prices[name]
            known = [k for k in self.prices if name.startswith(k + "-")]
            if known:
                return self.prices[max(known, key=len)]
        return None

    def cost(self, model: str, tokens_in: int, tokens_out: int) -> float | None:
        price = self.price_of(model)
        if price is None:
            return None
        return (tokens_in * price.input + tokens_out * price.output) / 1_000_000


class Limits(BaseModel):
    """`--max-calls` and `--max-tokens`: how much the run may spend before it asks the person,
    and again as much each time they let it go on."""

    max_calls: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)
    rounds: int = Field(1, ge=1, description="1 + how often the person let the run go on.")

    def exceeded(self, usage: Tally, next_call_tokens: int) -> str | None:
        """Why the next call would go over a limit, or None."""
        if self.max_calls is not None and usage.calls + 1 > self.max_calls * self.rounds:
            return (f"the run has made {usage.calls} model calls; {self.max_calls * self.rounds} "
                    f"were allowed (--max-calls {self.max_calls} at a time)")
        if self.max_tokens is not None and usage.tokens + next_call_tokens > self.max_tokens * self.rounds:
            return (f"the run has used {usage.tokens:,} tokens and the next call is about "
                    f"{next_call_tokens:,} more; {self.max_tokens * self.rounds:,} were allowed "
                    f"(--max-tokens {self.max_tokens:,} at a time)")
        return None

    def raised(self, usage: Tally) -> Limits:
        """As much again as the person first allowed, past what is spent now."""
        rounds = self.rounds + 1
        while self.model_copy(update={"rounds": rounds}).exceeded(usage, 0):
            rounds += 1  # one prompt alone may be bigger than a round of --max-tokens
        return self.model_copy(update={"rounds": rounds})

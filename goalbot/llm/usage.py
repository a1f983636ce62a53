"""What the run has spent on the model — calls, tokens, dollars — and the limits the person set."""

from __future__ import annotations

import tomllib
from importlib.resources import files

from pydantic import BaseModel, Field


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


class Usage(BaseModel):
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


class Limits(BaseModel):
    """`--max-calls` and `--max-tokens`; raised by the person when they let the run go on."""

    max_calls: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)

    def exceeded(self, usage: Usage, next_prompt_tokens: int) -> str | None:
        """Why the next call would go over a limit, or None."""
        if self.max_calls is not None and usage.calls + 1 > self.max_calls:
            return f"the run has made {usage.calls} model calls (--max-calls {self.max_calls})"
        if self.max_tokens is not None and usage.tokens + next_prompt_tokens > self.max_tokens:
            return (f"the run has used {usage.tokens:,} tokens and the next prompt is about "
                    f"{next_prompt_tokens:,} more (--max-tokens {self.max_tokens:,})")
        return None

    def raised(self, original: Limits, usage: Usage) -> Limits:
        """As much again as the person first allowed, counted from what is spent now."""
        return Limits(
            max_calls=usage.calls + original.max_calls if original.max_calls else None,
            max_tokens=usage.tokens + original.max_tokens if original.max_tokens else None,
        )

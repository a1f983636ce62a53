"""What the settings make: the run's options, the browser's, and the model client."""

from __future__ import annotations

import os
import sys

from goalbot.agents.policies import SafetyPolicy
from goalbot.agents.options import RunOptions
from goalbot.service.settings import Settings
from goalbot.llm.client import ModelConfig, ModelSetup
from goalbot.llm.dialects import Dialect, parse_dialects
from goalbot.llm.transport import RetryPolicy
from goalbot.llm.usage import Limits, PriceTable


def dialects_of(settings: Settings) -> dict[str, Dialect]:
    """Raises DialectError (a ValueError) with a message for the person."""
    return parse_dialects(settings.dialect)


def run_options(settings: Settings, goal: str, url: str | None) -> RunOptions:
    """Raises DialectError when `--dialect` cannot be read."""
    policy = SafetyPolicy(min_interval_s=settings.min_interval_s, burst=settings.burst,
                          clicks_per_minute=settings.clicks_per_minute)
    return RunOptions(
        goal=goal, url=url, max_steps=settings.max_steps, max_failures=settings.max_failures,
        max_actions_per_step=settings.max_actions_per_step, planning_interval=settings.planning_interval,
        # The desktop has nothing but pixels: its model always sees the screen.
        vision=settings.vision or settings.operator == "desktop", coords=settings.coords,
        dialects=dialects_of(settings), allow_domains=settings.allow_domain, allow_schemes=settings.allow_scheme,
        allow_risky=settings.allow_risky, approval_timeout_s=settings.approval_timeout_s, policy=policy,
        # A door where someone watches every moment asks for every picture instead.
        pictures="paced" if settings.replay_pictures else "none",
    )


def model_setup(settings: Settings) -> ModelSetup:
    config = ModelConfig(
        base_url=settings.base_url, model=settings.model, role_models=settings.role_models(),
        api_key=settings.api_key, timeout_s=settings.model_timeout_s,
        retry=RetryPolicy(retries=settings.model_retries), max_answer_tokens=settings.max_answer_tokens,
    )
    limits = Limits(max_calls=settings.max_calls, max_tokens=settings.max_tokens)
    return ModelSetup(config, PriceTable(settings.prices), limits)


def headless_by_default() -> bool:
    """No window without a display to show it on."""
    return sys.platform.startswith("linux") and not os.environ.get("DISPLAY")

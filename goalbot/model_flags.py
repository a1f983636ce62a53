"""The model's command-line flags, and the client and run options they make."""

from __future__ import annotations

import argparse

from goalbot.config import Settings
from goalbot.events import Emitter
from goalbot.llm.client import ModelClient, ModelConfig
from goalbot.llm.coordinates import Convention
from goalbot.llm.dialects import Dialect, parse_dialects
from goalbot.llm.transport import RetryPolicy
from goalbot.llm.usage import Limits, PriceTable


def add_model_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
    p.add_argument("--model", help="model name (env GOALBOT_MODEL)")
    p.add_argument("--api-key", help="API key (env OPENAI_API_KEY; never stored)")
    for role in ("planner", "navigator", "validator"):
        p.add_argument(f"--{role}-model", metavar="MODEL", help=f"a different model for the {role}")
    p.add_argument(
        "--dialect", action="append", metavar="[ROLE=]DIALECT",
        help="how the model answers: auto (tool calls if the endpoint takes them, else JSON text), "
             "tools, uitars or json; for every role, or one role with navigator=uitars (repeatable)",
    )
    p.add_argument("--coords", choices=[c.value for c in Convention],
                   help="how the model writes coordinates (default: relative1000 for uitars, else pixels)")
    p.add_argument("--vision", action="store_true", default=None,
                   help="send screenshots to the model (uitars always gets them)")
    p.add_argument("--model-timeout", type=float, metavar="SECONDS", dest="model_timeout_s",
                   help="give up on one attempt after this long (default 120)")
    p.add_argument("--model-retries", type=int, metavar="N",
                   help="retries after a timeout, a dropped connection, 429 or 5xx (default 4)")


def add_budget_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-calls", type=int, metavar="N",
                   help="model calls allowed before the run pauses to ask you")
    p.add_argument("--max-tokens", type=int, metavar="N",
                   help="tokens allowed before the run pauses to ask you")


def dialects_of(settings: Settings) -> dict[str, Dialect]:
    """Raises DialectError (a ValueError) with a message for the person."""
    return parse_dialects(settings.dialect)


def build_client(settings: Settings, emitter: Emitter) -> ModelClient:
    config = ModelConfig(
        base_url=settings.base_url, model=settings.model, role_models=settings.role_models(),
        api_key=settings.api_key, timeout_s=settings.model_timeout_s,
        retry=RetryPolicy(retries=settings.model_retries),
    )
    limits = Limits(max_calls=settings.max_calls, max_tokens=settings.max_tokens)
    return ModelClient(config, emitter, PriceTable(settings.prices), limits)

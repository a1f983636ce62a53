"""A run's request and browser options from the flags of `run`, `rerun`, `demo`, `resume` and
`observe`: the only place the service's typed requests are read from argparse."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import SecretStr

from goalbot.agents.secrets import parse_secret, read_secrets_file
from goalbot.operators.browser.options import BrowserOptions
from goalbot.service.request import RunRequest, parse_variable
from goalbot.service.run_setup import headless_by_default


def run_request(args: argparse.Namespace, browser_path: str | None) -> RunRequest:
    """Raises SecretError when a secret or the secrets file cannot be read."""
    secrets_file: Path | None = getattr(args, "secrets_file", None)
    values = read_secrets_file(secrets_file) if secrets_file else {}
    values.update(parse_secret(text) for text in getattr(args, "secret", None) or [])
    return RunRequest(
        auto_approve=bool(getattr(args, "yes", False)), no_tui=bool(getattr(args, "no_tui", False)),
        await_attach=bool(getattr(args, "await_attach", False)),
        browser=browser_options(args, browser_path),
        secrets={name: SecretStr(value) for name, value in values.items()},
        save_recipe=getattr(args, "save_recipe", None),
        variables=dict(parse_variable(text) for text in getattr(args, "var", None) or []),
        json_result=bool(getattr(args, "json", False)), output=getattr(args, "output", None),
        authoring_profile=getattr(args, "authoring_profile", None),
    )


def browser_options(args: argparse.Namespace, browser_path: str | None) -> BrowserOptions:
    """The browser flags (absent ones at their defaults)."""
    return BrowserOptions(
        headless=bool(getattr(args, "headless", None)) or headless_by_default(), browser_path=browser_path,
        profile=getattr(args, "profile", None), storage_state=getattr(args, "storage_state", None),
        cdp_url=getattr(args, "cdp_url", None), cdp_fresh_context=bool(getattr(args, "cdp_fresh_context", False)),
        trace=getattr(args, "trace", None) or "off",
        trace_screenshots=bool(getattr(args, "trace_screenshots", False)),
    )

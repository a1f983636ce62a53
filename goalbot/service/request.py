"""What one run needs besides the settings, typed: read once from the flags of `run`, `demo` and
`resume`, or left at its defaults for a goal typed in the dashboard."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

from goalbot.agents.secrets import SecretError, parse_secret, read_secrets_file
from goalbot.service.run_setup import browser_options, headless_by_default
from goalbot.operators.browser.options import BrowserOptions

VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class RunRequest(BaseModel):
    auto_approve: bool = Field(False, description="--yes: plans are approved without asking.")
    no_tui: bool = Field(False, description="Print events instead of opening the dashboard.")
    await_attach: bool = Field(False, description="Nobody here: goalbot attach approves and answers.")
    browser: BrowserOptions = Field(default_factory=lambda: BrowserOptions(headless=headless_by_default()))
    secrets: dict[str, SecretStr] = Field(default_factory=dict, description="--secret and --secrets-file.")
    save_recipe: str | None = Field(None, description="--save-recipe: keep the run as this recipe if it succeeds.")
    variables: dict[str, str] = Field(default_factory=dict, description="--var K=V: a recipe's variables.")
    json_result: bool = Field(False, description="--json: events on stderr, the result as JSON on stdout.")
    output: Path | None = Field(None, description="--output FILE: the result as JSON, written there.")
    authoring_profile: str | None = Field(None, description="--authoring-profile vN (or none): the prompts of "
                                          "the roles that author; None: the pinned profile's.")
    shared_pace: str | None = Field(None, description='A batch job\'s pace per site, shared with the others: '
                                                      '"store", or a broker\'s redis:// address.')

    @classmethod
    def from_flags(cls, args: argparse.Namespace, browser_path: str | None) -> RunRequest:
        """Raises SecretError when a secret or the secrets file cannot be read."""
        secrets_file: Path | None = getattr(args, "secrets_file", None)
        values = read_secrets_file(secrets_file) if secrets_file else {}
        values.update(parse_secret(text) for text in getattr(args, "secret", None) or [])
        return cls(
            auto_approve=bool(getattr(args, "yes", False)), no_tui=bool(getattr(args, "no_tui", False)),
            await_attach=bool(getattr(args, "await_attach", False)),
            browser=browser_options(args, browser_path),
            secrets={name: SecretStr(value) for name, value in values.items()},
            save_recipe=getattr(args, "save_recipe", None),
            variables=dict(parse_variable(text) for text in getattr(args, "var", None) or []),
            json_result=bool(getattr(args, "json", False)), output=getattr(args, "output", None),
            authoring_profile=getattr(args, "authoring_profile", None),
        )

    @classmethod
    def typed_in(cls, browser_path: str | None) -> RunRequest:
        """A goal typed in the dashboard: the flags' defaults, the person at the keyboard."""
        return cls(browser=BrowserOptions(headless=headless_by_default(), browser_path=browser_path))

    def secret_values(self) -> dict[str, str]:
        return {name: value.get_secret_value() for name, value in self.secrets.items()}


def parse_variable(text: str) -> tuple[str, str]:
    """`--var K=V`; SecretError (a bad flag, said in one line) when it is not that."""
    name, sep, value = text.partition("=")
    if not sep or not VARIABLE_NAME.fullmatch(name.strip()) or not value:
        raise SecretError(f"a variable is NAME=VALUE, with NAME made of letters, digits and _ (got {text!r})")
    return name.strip(), value

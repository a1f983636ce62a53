"""What one run needs besides the settings, typed: made by each door (the command line from its
flags, the Python API from its arguments), or left at its defaults for a goal typed in the dashboard."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

from goalbot.agents.secrets import SecretError
from goalbot.service.run_setup import headless_by_default
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

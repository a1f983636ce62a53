"""Settings: flags win over the environment, which wins over the TOML file in the XDG config dir."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from urllib.parse import urlsplit
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator

from goalbot import defaults as D
from goalbot.llm.coordinates import Convention
from goalbot.llm.usage import Price
from goalbot.operators.browser.locate import BROWSER_VARIABLE

ENVIRONMENT = {
    "OPENAI_API_KEY": "api_key",
    "OPENAI_BASE_URL": "base_url",
    "GOALBOT_MODEL": "model",
    "GOALBOT_DB": "db",
    BROWSER_VARIABLE: "browser_path",
}


class ConfigError(Exception):
    pass


class Settings(BaseModel):
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    api_key: SecretStr = SecretStr("")
    db: Path | None = None
    browser_path: str | None = None
    max_steps: int = Field(D.MAX_STEPS, ge=1)
    max_failures: int = Field(D.MAX_FAILURES, ge=1)
    model_timeout_s: float = Field(D.MODEL_TIMEOUT_S, gt=0)
    model_retries: int = Field(D.MODEL_RETRIES, ge=0, le=20)
    planner_model: str | None = None
    navigator_model: str | None = None
    validator_model: str | None = None
    patcher_model: str | None = None
    dialect: list[str] = Field(default_factory=list, description="`json`, or `navigator=uitars`.")
    coords: Convention | None = None
    vision: bool = False
    max_calls: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)
    operator: Literal["browser", "desktop"] = "browser"
    monitor: int = Field(1, ge=1, description="The desktop operator's monitor, counted from 1.")
    grid: bool = Field(False, description="Draw a labelled grid on the desktop's screenshots.")
    max_actions_per_step: int = Field(D.MAX_ACTIONS_PER_STEP, ge=1)
    planning_interval: int = Field(0, ge=0)
    min_interval_s: float = Field(D.MIN_INTERVAL_S, ge=0)
    burst: int = Field(D.BURST, ge=1)
    clicks_per_minute: int = Field(D.CLICKS_PER_MINUTE, ge=1)
    allow_domain: list[str] = Field(default_factory=list, description="Host globs the browser stays on.")
    allow_scheme: list[str] = Field(default_factory=list, description="Schemes besides http(s), e.g. file.")
    allow_risky: bool = False
    approval_timeout_s: float = Field(D.APPROVAL_TIMEOUT_S, gt=0)
    images: Literal["auto", "sixel", "halfcell", "none"] = Field(
        "auto", description="How the dashboard draws screenshots: sixel where the terminal has it, else half-cell.")
    prices: dict[str, Price] = Field(default_factory=dict, description="Dollars per million tokens.")
    theme: str | None = Field(None, description="The dashboard's theme: the one last chosen in its palette.")

    @field_validator("base_url")
    @classmethod
    def _an_address(cls, url: str) -> str:
        try:
            parts = urlsplit(url)
            ok = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
        except ValueError:  # a port that is not a number
            ok = False
        if not ok:
            raise ValueError(f"the model endpoint {url!r} is not an http(s) address such as "
                             "http://localhost:11434/v1")
        return url

    def has_endpoint(self) -> bool:
        """A model endpoint was chosen: a key for the default one, or another address."""
        return bool(self.api_key.get_secret_value()) or self.base_url != Settings.model_fields["base_url"].default

    def role_models(self) -> dict[str, str]:
        chosen = {"planner": self.planner_model, "navigator": self.navigator_model,
                  "validator": self.validator_model, "patcher": self.patcher_model}
        return {role: model for role, model in chosen.items() if model}


def config_path() -> Path:
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(home) / "goalbot" / "config.toml"


def load_settings(flags: dict[str, Any], path: Path | None = None) -> Settings:
    path = path or config_path()
    values: dict[str, Any] = {}
    if path.exists():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"cannot read {path}: it is not UTF-8 text (byte {exc.start})") from exc
    for variable, field in ENVIRONMENT.items():
        if os.environ.get(variable):
            values[field] = os.environ[variable]
    values.update({k: v for k, v in flags.items() if v not in (None, []) and k in Settings.model_fields})
    unknown = sorted(set(values) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"{path}: unknown settings {', '.join(unknown)}")
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"bad setting: {problems}") from exc


def remember_setting(name: str, value: str, path: Path | None = None) -> None:
    """Keeps one top-level setting in the TOML file, the person's other lines and comments as they
    were. The new text is read back before it replaces the file: a file it cannot keep whole is left
    untouched (ConfigError)."""
    path = path or config_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    entry = f"{name} = {json.dumps(value)}"
    # Top-level keys come before the first table.
    tables = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    at = next((i for i in range(tables) if re.match(rf"\s*{re.escape(name)}\s*=", lines[i])), None)
    if at is None:
        lines.insert(tables, entry)
    else:
        lines[at] = entry
    text = "\n".join(lines) + "\n"
    try:
        kept = tomllib.loads(text).get(name) == value
    except tomllib.TOMLDecodeError:
        kept = False
    if not kept:
        raise ConfigError(f"{path}: cannot keep {name} in it without changing its other lines")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.new")
        draft.write_text(text, encoding="utf-8")
        os.replace(draft, path)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc}") from exc

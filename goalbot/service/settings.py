"""Settings: flags win over the environment, which wins over the TOML file in the XDG config dir.
Each is declared once, on `Settings`; its flag, help, default, section and variable are read from
that declaration (`flags.add_settings` renders the flags)."""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator

from goalbot import defaults as D
from goalbot.llm.coordinates import Convention
from goalbot.llm.usage import Price
from goalbot.operators.browser.locate import BROWSER_VARIABLE
from goalbot.text.plain_errors import in_words
from goalbot.text.regular_file import NotRegularFile, read_regular_text


class ConfigError(Exception):
    pass


class Section(StrEnum):
    """The config file's tables: `[model]`, `[run]`, …; a key may also stand at the top, as before."""

    MODEL = "model"
    RUN = "run"
    SAFETY = "safety"
    BROWSER = "browser"
    DESKTOP = "desktop"
    DASHBOARD = "dashboard"
    STORE = "store"


@dataclass(frozen=True)
class Declared:
    """How a setting shows outside the file: its section there, and its flag (`flags.add_settings`
    renders the flag, its help and its default from the field), or its environment variable."""

    section: Section
    flag: str | None = None  # "--name" unless given; "": no flag of its own (the file sets it, or a global flag)
    metavar: str | None = None
    env: str | None = None
    show_default: bool = True

    def flag_of(self, name: str) -> str:
        return self.flag or f"--{name.replace('_', '-')}"


def _declared(section: Section, help: str, default: Any = None, *, flag: str | None = None,
              metavar: str | None = None, env: str | None = None, show_default: bool = True,
              **limits: Any) -> Any:
    extra = {"declared": Declared(section, flag, metavar, env, show_default)}
    factory = {"default_factory": list} if default == [] else {"default_factory": dict} if default == {} else {}
    # The declaration rides in json_schema_extra, which pydantic types as JSON only.
    return Field(**(factory or {"default": default}), description=help,
                 json_schema_extra=extra, **limits)  # type: ignore[arg-type]


# Short names for the sections, so each declaration below stays on a line or two.
M, R, S, B, W, T, DB = (Section.MODEL, Section.RUN, Section.SAFETY, Section.BROWSER, Section.DESKTOP,
                        Section.DASHBOARD, Section.STORE)


class Settings(BaseModel):
    """Every setting, declared once: its type, default and limits, its help, its flag, its section
    in the config file and its environment variable."""

    base_url: str = _declared(M, "OpenAI-compatible endpoint", "https://api.openai.com/v1", metavar="URL",
                              env="OPENAI_BASE_URL", show_default=False)
    model: str = _declared(M, "model name", "gpt-4o-mini", metavar="NAME", env="GOALBOT_MODEL", show_default=False)
    api_key: SecretStr = _declared(M, "API key (never stored)", SecretStr(""), metavar="KEY", env="OPENAI_API_KEY",
                                   show_default=False)
    planner_model: str | None = _declared(M, "a different model for the planner", metavar="MODEL")
    navigator_model: str | None = _declared(M, "a different model for the navigator", metavar="MODEL")
    validator_model: str | None = _declared(M, "a different model for the validator", metavar="MODEL")
    patcher_model: str | None = _declared(M, "a different model for the patcher", metavar="MODEL")
    extractor_model: str | None = _declared(M, "a different model for the extractor (--output-schema)",
                                            metavar="MODEL")
    matcher_model: str | None = _declared(M, "a different (small) model for the matcher, which binds a recipe's "
                                             "variables when a goal's words do not surely fit it", metavar="MODEL")
    dialect: list[str] = _declared(
        M, "how the model answers: auto (tool calls if the endpoint takes them, else JSON text), tools, uitars, "
           "json or structured (JSON held to a schema by the server's grammar); for every role, or one role "
           "with navigator=uitars (repeatable)", [], metavar="[ROLE=]DIALECT")
    coords: Convention | None = _declared(
        M, "how the model writes coordinates (default: relative1000 for uitars, else pixels)")
    vision: bool = _declared(M, "send screenshots to the model (uitars always gets them)", False)
    model_timeout_s: float = _declared(
        M, "give up on one attempt after this long, however slowly it answers", D.MODEL_TIMEOUT_S,
        flag="--model-timeout", metavar="SECONDS", gt=0)
    model_retries: int = _declared(M, "retries after a timeout, a dropped connection, 429 or 5xx", D.MODEL_RETRIES,
                                   metavar="N", ge=0, le=20)
    max_answer_tokens: int | None = _declared(
        M, "the longest answer asked of the model (max_tokens; default: each role's own, 256 to 4096 "
           "tokens, and at most 768 with --dialect structured)", metavar="N", ge=16)
    max_calls: int | None = _declared(M, "model calls allowed before the run pauses to ask you", metavar="N", ge=1)
    max_tokens: int | None = _declared(M, "tokens allowed before the run pauses to ask you", metavar="N", ge=1)
    prices: dict[str, Price] = _declared(M, "Dollars per million tokens, by model.", {}, flag="")

    max_steps: int = _declared(R, "stop after this many steps", D.MAX_STEPS, metavar="N", ge=1)
    max_failures: int = _declared(R, "stop after this many failed actions or steps in a row", D.MAX_FAILURES,
                                  metavar="N", ge=1)
    planning_interval: int = _declared(R, "re-plan every N steps, not only when one fails (0: only then)", 0,
                                       metavar="N", ge=0)
    max_actions_per_step: int = _declared(R, "actions run from one navigator answer", D.MAX_ACTIONS_PER_STEP,
                                          metavar="N", ge=1)

    min_interval_s: float = _declared(S, "on average at least this long between two actions", D.MIN_INTERVAL_S,
                                      flag="--min-interval", metavar="SECONDS", ge=0)
    burst: int = _declared(S, "actions that may run back to back before --min-interval paces them (1: every "
                              "action waits out the interval)", D.BURST, metavar="N", ge=1)
    clicks_per_minute: int = _declared(S, "at most N clicks a minute", D.CLICKS_PER_MINUTE, metavar="N", ge=1)
    allow_domain: list[str] = _declared(
        S, "the browser stays on these hosts, e.g. shop.example.com or '*.example.com' (repeatable); secrets "
           "are typed only there", [], metavar="GLOB")
    allow_scheme: list[str] = _declared(
        S, "let pages open addresses of this scheme too, e.g. file (repeatable; only http(s) and about:blank "
           "otherwise; never javascript)", [], metavar="SCHEME")
    allow_risky: bool = _declared(S, "GO to paying, deleting, sending and uploading without asking (leaving "
                                     "--allow-domain still asks)", False)
    approval_timeout_s: float = _declared(S, "no answer to a GO / NOT GO question within this long is NOT GO",
                                          D.APPROVAL_TIMEOUT_S, flag="--approval-timeout", metavar="SECONDS", gt=0)

    browser_path: str | None = _declared(B, "Chromium to launch", metavar="FILE", env=BROWSER_VARIABLE)

    operator: Literal["browser", "desktop"] = _declared(
        W, "drive a browser or the whole screen with PyAutoGUI", "browser")
    monitor: int = _declared(W, "the desktop's monitor, counted from 1", 1, metavar="N", ge=1)
    grid: bool = _declared(W, "draw a labelled grid on the desktop's screenshots, for models without grounding",
                           False)

    images: Literal["auto", "sixel", "halfcell", "none"] = _declared(
        T, "how screenshots are drawn: sixel where the terminal has it, else half-cell", "auto")
    theme: str | None = _declared(T, "The dashboard's theme: the one last chosen in its palette.", flag="")

    db: Path | None = _declared(DB, "SQLite store", metavar="FILE", env="GOALBOT_DB", flag="")
    replay_pictures: bool = _declared(
        DB, "keep screenshots for the replay of runs nobody watches (a step's start and end, one every 2 s); "
            "a dashboard's runs always have them", False)

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
                  "validator": self.validator_model, "patcher": self.patcher_model,
                  "extractor": self.extractor_model, "matcher": self.matcher_model}
        return {role: model for role, model in chosen.items() if model}


def declared(name: str) -> Declared:
    extra = Settings.model_fields[name].json_schema_extra
    assert isinstance(extra, dict)
    found = extra["declared"]
    assert isinstance(found, Declared)
    return found


def environment() -> dict[str, str]:
    """Each variable a setting is read from, and the setting."""
    return {env: name for name in Settings.model_fields if (env := declared(name).env)}


# A settings file is a few lines; one much larger is no settings file.
CONFIG_MOST_BYTES = 1_000_000


def config_path() -> Path:
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(home) / "goalbot" / "config.toml"


def load_settings(flags: dict[str, Any], path: Path | None = None) -> Settings:
    path = path or config_path()
    values: dict[str, Any] = {}
    if path.exists():
        try:
            values.update(_flattened(tomllib.loads(read_regular_text(path, CONFIG_MOST_BYTES)), path))
        except NotRegularFile as exc:  # a FIFO in its place would hang every command
            raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"cannot read {path}: it is not UTF-8 text (byte {exc.start})") from exc
    for variable, field in environment().items():
        if os.environ.get(variable):
            values[field] = os.environ[variable]
    values.update({k: v for k, v in flags.items() if v not in (None, []) and k in Settings.model_fields})
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(f"{_named(e['loc'])} {in_words(e)}" for e in exc.errors())
        raise ConfigError(f"bad setting: {problems}") from exc


def _named(place: tuple[int | str, ...]) -> str:
    """A setting as the person gave it: its flag (the config file's key is the same name)."""
    name = str(place[0]) if place else ""
    if name in Settings.model_fields:
        return f"{declared(name).flag_of(name)} ({name} in the config file)"
    return ".".join(map(str, place)) or "a setting"


def _flattened(document: dict[str, Any], path: Path) -> dict[str, Any]:
    """The file's settings by name: `[model] base_url = …` and a top-level `base_url = …` alike.
    A key in the wrong table, or one no setting has, is named with the table it should be in."""
    values: dict[str, Any] = {}
    for key, value in document.items():
        if key in set(Section) and isinstance(value, dict):
            for name, setting in value.items():
                if name not in Settings.model_fields:
                    raise ConfigError(f"{path}: [{key}] has no setting {name!r}{_did_you_mean(name)}")
                if declared(name).section != key:
                    raise ConfigError(f"{path}: {name} belongs in [{declared(name).section}], not [{key}]")
                values[name] = setting
        elif key in Settings.model_fields:
            values[key] = value
        else:
            raise ConfigError(f"{path}: unknown setting {key!r}{_did_you_mean(key)} "
                              f"(the tables are {', '.join(map(str, Section))})")
    return values


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, list(Settings.model_fields), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def remember_setting(name: str, value: str, path: Path | None = None) -> None:
    """Keeps one setting in the TOML file, the person's other lines and comments as they were:
    where the file has it already (at the top, or in its table), else in its table, made if need
    be. The new text is read back before it replaces the file: a file it cannot keep whole is left
    untouched (ConfigError)."""
    path = path or config_path()
    try:
        lines = read_regular_text(path, CONFIG_MOST_BYTES).splitlines() if path.exists() else []
    except NotRegularFile as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    entry = f"{name} = {json.dumps(value)}"
    section = declared(name).section
    tables = [i for i, line in enumerate(lines) if line.lstrip().startswith("[")] + [len(lines)]
    own = next((i for i in tables[:-1] if re.fullmatch(rf"\s*\[\s*{section}\s*\]\s*(#.*)?", lines[i])), None)
    key = re.compile(rf"\s*{re.escape(name)}\s*=")
    at = next((i for i in range(tables[0]) if key.match(lines[i])), None)  # top-level keys come first
    if at is None and own is not None:
        end = next(i for i in tables if i > own)
        at = next((i for i in range(own + 1, end) if key.match(lines[i])), None)
        if at is None:
            lines.insert(end, entry)
    if at is not None:
        lines[at] = entry
    elif own is None:
        lines += ([""] if lines else []) + [f"[{section}]", entry]
    text = "\n".join(lines) + "\n"
    try:
        kept = _flattened(tomllib.loads(text), path).get(name) == value
    except (tomllib.TOMLDecodeError, ConfigError):
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

"""Every command-line flag, in one module that imports nothing heavy: `goalbot tail` and
`goalbot --help` build the whole parser without loading the browser, the model client or the
dashboard. A flag that sets a setting is rendered from the setting's declaration on `Settings`
(its type, help, default and variable); the others are a command's own words."""

from __future__ import annotations

import argparse
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any

from goalbot import defaults as D
from goalbot.service.settings import Settings, declared


def add_settings(group: argparse._ActionsContainer, *names: str) -> None:
    """The flags of these settings, as `Settings` declares them."""
    for name in names:
        group.add_argument(declared(name).flag_of(name), dest=name, help=setting_help(name), **_kind(name))


def _kind(name: str) -> dict[str, Any]:
    annotation = Settings.model_fields[name].annotation
    metavar = declared(name).metavar
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(options) == 1:
        annotation = options[0]  # `int | None`: an int that may be left unset
    if annotation is bool:
        return {"action": "store_true", "default": None}
    if typing.get_origin(annotation) is list:
        return {"action": "append", "metavar": metavar}
    if typing.get_origin(annotation) is typing.Literal:
        return {"choices": list(typing.get_args(annotation))}
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return {"choices": [member.value for member in annotation]}
    kind = annotation if annotation in (int, float, Path) else str
    return {"type": kind, "metavar": metavar}


def setting_help(name: str) -> str:
    field, how = Settings.model_fields[name], declared(name)
    notes = [f"env {how.env}"] if how.env else []
    default = field.get_default(call_default_factory=True)
    if how.show_default and default not in (None, False, "", [], {}):
        notes.append(f"default {default:g}" if isinstance(default, float) else f"default {default}")
    return f"{field.description}" + (f" ({'; '.join(notes)})" if notes else "")



def add_image_flag(p: argparse._ActionsContainer) -> None:
    # SUPPRESS: a subcommand's flag must not hide one given before the subcommand.
    p.add_argument("--images", default=argparse.SUPPRESS, help=setting_help("images"), **_kind("images"))


def add_model_flags(p: argparse.ArgumentParser,
                    roles: tuple[str, ...] = ("planner", "navigator", "validator", "patcher", "extractor",
                                              "matcher")) -> None:
    """The endpoint and model flags, with a model flag for each of `roles` the command asks."""
    add_settings(p.add_argument_group("model"), "base_url", "model", "api_key", *(f"{role}_model" for role in roles),
                 "dialect", "coords", "vision", "model_timeout_s", "model_retries", "max_answer_tokens")


def add_authoring_flag(p: argparse.ArgumentParser) -> None:
    # Not --profile: that names the persistent browser profile, and has since the first release.
    p.add_argument("--authoring-profile", metavar="vN",
                   help="the authoring profile (goalbot tune) whose instructions the planner and the patcher "
                        "get: vN, or none for goalbot's own (default: the pinned one, goalbot profile pin)")


def add_budget_flags(p: argparse.ArgumentParser) -> None:
    add_settings(p.add_argument_group("budget (the run pauses to ask you)"), "max_calls", "max_tokens")


def add_browser_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("browser")
    g.add_argument("--headless", action="store_true", default=None,
                   help="no browser window (the default when there is no DISPLAY)")
    add_settings(g, "browser_path")
    g.add_argument("--profile", metavar="NAME",
                   help="keep a persistent browser profile, so logins survive between runs")
    g.add_argument("--storage-state", type=Path, metavar="FILE",
                   help="cookies and local storage: read at start if FILE exists, written at the end")
    g.add_argument("--cdp-url", metavar="URL",
                   help="attach to a running Chromium (or a browser pool) over the DevTools protocol")
    g.add_argument("--cdp-fresh-context", action="store_true",
                   help="with --cdp-url: a new empty context for this run, closed at its end (no cookies of "
                        "the browser's own)")
    g.add_argument("--trace", choices=("failed", "always"),
                   help="record a Playwright trace (DOM snapshots), kept in the store when the run fails or "
                        "always; goalbot trace SESSION opens it")
    g.add_argument("--trace-screenshots", action="store_true", help="with --trace: screenshots in the trace too")


def add_operator_flags(p: argparse.ArgumentParser) -> None:
    add_settings(p.add_argument_group("desktop"), "operator", "monitor", "grid")


def add_person_flags(p: argparse.ArgumentParser) -> None:
    """What the person decides, and how long the run waits for them."""
    g = p.add_argument_group("you and the run")
    g.add_argument("--yes", "-y", action="store_true", help="approve plans without asking (not risky actions)")
    g.add_argument("--no-tui", action="store_true", help="print events instead of the dashboard")
    g.add_argument("--await-attach", action="store_true",
                   help="with no terminal here, wait for the plan's approval (and any question) "
                        "from goalbot attach")
    add_settings(g, "allow_risky", "approval_timeout_s")


def add_secret_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("secrets")
    g.add_argument("--secret", action="append", metavar="NAME=VALUE",
                   help="a secret the model can type as <secret:NAME> without seeing it (repeatable)")
    g.add_argument("--secrets-file", type=Path, metavar="FILE", help="secrets as NAME=VALUE lines")


def add_run_flags(p: argparse.ArgumentParser) -> None:
    add_person_flags(p)
    add_settings(p.add_argument_group("limits"), "max_steps", "max_failures", "planning_interval",
                 "max_actions_per_step")
    add_settings(p.add_argument_group("pace (what the site sees)"), "min_interval_s", "burst", "clicks_per_minute")
    add_settings(p.add_argument_group("where pages may go"), "allow_domain", "allow_scheme")
    add_settings(p.add_argument_group("the store"), "replay_pictures")
    add_budget_flags(p)
    add_secret_flags(p)


def add_observe_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    observe = sub.add_parser("observe", help="print what the navigator sees on a page")
    observe.add_argument("url", help="the page to open")
    observe.add_argument("--screenshot", type=Path, metavar="FILE",
                         help="also save the screenshot (PNG, or JPEG by the file's suffix)")
    observe.add_argument("--som", action="store_true",
                         help="draw each element's index in a box on the screenshot (Set-of-Mark)")
    observe.add_argument("--budget", type=int, default=D.OBSERVATION_BUDGET,
                         help=f"characters the observation may take (default {D.OBSERVATION_BUDGET})")
    observe.add_argument("--json", action="store_true",
                         help="one JSON document: the address, the title, the observation and its elements")
    add_browser_flags(observe)
    add_settings(observe.add_argument_group("where the page may be"), "allow_domain", "allow_scheme")
    return observe


def add_result_flags(p: argparse.ArgumentParser, schema: bool = True) -> None:
    """How the run's result is given: `--json` and `--output`, and (for a run) `--output-schema`."""
    g = p.add_argument_group("the result")
    if schema:
        g.add_argument("--output-schema", type=Path, metavar="FILE",
                       help="a JSON Schema: the run's answer is data read off the last page, shaped by it and "
                            "checked against it (a run whose data does not fit fails, with every error)")
    if schema:
        g.add_argument("--schema", action="append", metavar="NAME=FILE", default=[],
                       help="a JSON Schema the navigator's `extract` may name (repeatable)")
        g.add_argument("--policies", type=Path, metavar="FILE",
                       help="choice policies (policies.json: hard filters, scores, tie-breaks) the navigator's "
                            "`choose` may name; a recipe saved from the run keeps them")
    g.add_argument("--json", action="store_true",
                   help='print the result as one JSON document on stdout: {"session", "status", "result", '
                        '"valid", "errors"}; events go to stderr')
    g.add_argument("--output", type=Path, metavar="FILE", help="write the result there as JSON")


def add_recipe_flags(p: argparse.ArgumentParser, saving: bool) -> None:
    g = p.add_argument_group("recipe")
    if saving:
        g.add_argument("--save-recipe", metavar="NAME",
                       help="when the goal is reached, keep the run as a recipe to rerun without a model")
    g.add_argument("--var", action="append", metavar="NAME=VALUE",
                   help="a recipe variable: saving turns VALUE into {{NAME}}; rerunning fills it in (repeatable)")

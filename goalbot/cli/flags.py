"""Every command-line flag, in one module that imports nothing heavy: `goalbot tail` and
`goalbot --help` build the whole parser without loading the browser, the model client or the
dashboard. Help texts read their defaults from `goalbot.defaults`."""

from __future__ import annotations

import argparse
from pathlib import Path

from goalbot import defaults as D
from goalbot.llm.coordinates import Convention  # a light module: an enum and arithmetic



def add_image_flag(p: argparse._ActionsContainer) -> None:
    # SUPPRESS: a subcommand's flag must not hide one given before the subcommand.
    p.add_argument("--images", choices=["auto", "sixel", "halfcell", "none"], default=argparse.SUPPRESS,
                   help="how screenshots are drawn: sixel where the terminal has it, else half-cell (default auto)")


def add_model_flags(p: argparse.ArgumentParser,
                    roles: tuple[str, ...] = ("planner", "navigator", "validator", "patcher")) -> None:
    """The endpoint and model flags, with a model flag for each of `roles` the command asks."""
    g = p.add_argument_group("model")
    g.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
    g.add_argument("--model", metavar="NAME", help="model name (env GOALBOT_MODEL)")
    g.add_argument("--api-key", metavar="KEY", help="API key (env OPENAI_API_KEY; never stored)")
    for role in roles:
        g.add_argument(f"--{role}-model", metavar="MODEL", help=f"a different model for the {role}")
    g.add_argument(
        "--dialect", action="append", metavar="[ROLE=]DIALECT",
        help="how the model answers: auto (tool calls if the endpoint takes them, else JSON text), "
             "tools, uitars or json; for every role, or one role with navigator=uitars (repeatable)",
    )
    g.add_argument("--coords", choices=[c.value for c in Convention],
                   help="how the model writes coordinates (default: relative1000 for uitars, else pixels)")
    g.add_argument("--vision", action="store_true", default=None,
                   help="send screenshots to the model (uitars always gets them)")
    g.add_argument("--model-timeout", type=float, metavar="SECONDS", dest="model_timeout_s",
                   help=f"give up on one attempt after this long, however slowly it answers (default {D.MODEL_TIMEOUT_S:g})")
    g.add_argument("--model-retries", type=int, metavar="N",
                   help=f"retries after a timeout, a dropped connection, 429 or 5xx (default {D.MODEL_RETRIES})")


def add_budget_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("budget (the run pauses to ask you)")
    g.add_argument("--max-calls", type=int, metavar="N",
                   help="model calls allowed before the run pauses to ask you")
    g.add_argument("--max-tokens", type=int, metavar="N",
                   help="tokens allowed before the run pauses to ask you")


def add_browser_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("browser")
    g.add_argument("--headless", action="store_true", default=None,
                   help="no browser window (the default when there is no DISPLAY)")
    g.add_argument("--browser-path", metavar="FILE", help="Chromium to launch (env GOALBOT_BROWSER)")
    g.add_argument("--profile", metavar="NAME",
                   help="keep a persistent browser profile, so logins survive between runs")
    g.add_argument("--storage-state", type=Path, metavar="FILE",
                   help="cookies and local storage: read at start if FILE exists, written at the end")
    g.add_argument("--cdp-url", metavar="URL",
                   help="attach to a running Chromium (or a browser pool) over the DevTools protocol")


def add_operator_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("desktop")
    g.add_argument("--operator", choices=["browser", "desktop"],
                   help="drive a browser (default) or the whole screen with PyAutoGUI")
    g.add_argument("--monitor", type=int, metavar="N", help="the desktop's monitor, counted from 1 (default 1)")
    g.add_argument("--grid", action="store_true", default=None,
                   help="draw a labelled grid on the desktop's screenshots, for models without grounding")


def add_person_flags(p: argparse.ArgumentParser) -> None:
    """What the person decides, and how long the run waits for them."""
    g = p.add_argument_group("you and the run")
    g.add_argument("--yes", "-y", action="store_true", help="approve plans without asking (not risky actions)")
    g.add_argument("--no-tui", action="store_true", help="print events instead of the dashboard")
    g.add_argument("--await-attach", action="store_true",
                   help="with no terminal here, wait for the plan's approval (and any question) "
                        "from goalbot attach")
    g.add_argument("--allow-risky", action="store_true", default=None,
                   help="GO to paying, deleting, sending and uploading without asking "
                        "(leaving --allow-domain still asks)")
    g.add_argument("--approval-timeout", type=float, metavar="SECONDS", dest="approval_timeout_s",
                   help="no answer to a GO / NOT GO question within this long is NOT GO "
                        f"(default {D.APPROVAL_TIMEOUT_S:g})")


def add_secret_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("secrets")
    g.add_argument("--secret", action="append", metavar="NAME=VALUE",
                   help="a secret the model can type as <secret:NAME> without seeing it (repeatable)")
    g.add_argument("--secrets-file", type=Path, metavar="FILE", help="secrets as NAME=VALUE lines")


def add_run_flags(p: argparse.ArgumentParser) -> None:
    add_person_flags(p)
    g = p.add_argument_group("limits")
    g.add_argument("--max-steps", type=int, metavar="N", help=f"stop after this many steps (default {D.MAX_STEPS})")
    g.add_argument("--max-failures", type=int, metavar="N",
                   help=f"stop after this many failed actions or steps in a row (default {D.MAX_FAILURES})")
    g.add_argument("--planning-interval", type=int, metavar="N",
                   help="re-plan every N steps, not only when one fails (default 0: only then)")
    g.add_argument("--max-actions-per-step", type=int, metavar="N",
                   help=f"actions run from one navigator answer (default {D.MAX_ACTIONS_PER_STEP})")
    g = p.add_argument_group("pace (what the site sees)")
    g.add_argument("--min-interval", type=float, metavar="SECONDS", dest="min_interval_s",
                   help=f"on average at least this long between two actions (default {D.MIN_INTERVAL_S:g})")
    g.add_argument("--burst", type=int, metavar="N",
                   help=f"actions that may run back to back before --min-interval paces them (default {D.BURST}; "
                        "1: every action waits out the interval)")
    g.add_argument("--clicks-per-minute", type=int, metavar="N",
                   help=f"at most N clicks a minute (default {D.CLICKS_PER_MINUTE})")
    g = p.add_argument_group("where pages may go")
    g.add_argument("--allow-domain", action="append", metavar="GLOB",
                   help="the browser stays on these hosts, e.g. shop.example.com or '*.example.com' "
                        "(repeatable); secrets are typed only there")
    g.add_argument("--allow-scheme", action="append", metavar="SCHEME",
                   help="let pages open addresses of this scheme too, e.g. file (repeatable; only "
                        "http(s) and about:blank otherwise; never javascript)")
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
    add_browser_flags(observe)
    return observe


def add_recipe_flags(p: argparse.ArgumentParser, saving: bool) -> None:
    g = p.add_argument_group("recipe")
    if saving:
        g.add_argument("--save-recipe", metavar="NAME",
                       help="when the goal is reached, keep the run as a recipe to rerun without a model")
    g.add_argument("--var", action="append", metavar="NAME=VALUE",
                   help="a recipe variable: saving turns VALUE into {{NAME}}; rerunning fills it in (repeatable)")

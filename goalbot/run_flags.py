"""The flags of `goalbot run`, `demo` and `resume`, and the options they make."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from goalbot.agents.policies import SafetyPolicy
from goalbot.agents.session import RunOptions
from goalbot.config import Settings
from goalbot.llm.dialects import Dialect
from goalbot.model_flags import add_budget_flags
from goalbot.operators.browser_launch import BrowserOptions


def add_browser_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--headless", action="store_true", default=None,
                   help="no browser window (the default when there is no DISPLAY)")
    p.add_argument("--browser-path", help="Chromium to launch (env GOALBOT_BROWSER)")
    p.add_argument("--profile", metavar="NAME",
                   help="keep a persistent browser profile, so logins survive between runs")
    p.add_argument("--storage-state", type=Path, metavar="FILE",
                   help="cookies and local storage: read at start if FILE exists, written at the end")
    p.add_argument("--cdp-url", metavar="URL",
                   help="attach to a running Chromium (or a browser pool) over the DevTools protocol")


def browser_options(args: argparse.Namespace, settings: Settings) -> BrowserOptions:
    headless = bool(args.headless) or (sys.platform.startswith("linux") and not os.environ.get("DISPLAY"))
    return BrowserOptions(
        headless=headless, browser_path=settings.browser_path, profile=args.profile,
        storage_state=args.storage_state, cdp_url=args.cdp_url,
    )


def add_operator_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--operator", choices=["browser", "desktop"],
                   help="drive a browser (default) or the whole screen with PyAutoGUI")
    p.add_argument("--monitor", type=int, metavar="N", help="the desktop's monitor, counted from 1 (default 1)")
    p.add_argument("--grid", action="store_true", default=None,
                   help="draw a labelled grid on the desktop's screenshots, for models without grounding")


def add_person_flags(p: argparse.ArgumentParser) -> None:
    """What the person decides, and how long the run waits for them."""
    p.add_argument("--yes", "-y", action="store_true", help="approve plans without asking (not risky actions)")
    p.add_argument("--no-tui", action="store_true", help="print events instead of the dashboard")
    p.add_argument("--await-attach", action="store_true",
                   help="with no terminal here, wait for the plan's approval (and any question) "
                        "from goalbot attach")
    p.add_argument("--allow-risky", action="store_true", default=None,
                   help="GO to paying, deleting, sending and uploading without asking "
                        "(leaving --allow-domain still asks)")
    p.add_argument("--approval-timeout", type=float, metavar="SECONDS", dest="approval_timeout_s",
                   help="no answer to a GO / NOT GO question within this long is NOT GO (default 300)")


def add_run_flags(p: argparse.ArgumentParser) -> None:
    add_person_flags(p)
    p.add_argument("--max-steps", type=int, help="stop after this many steps (default 20)")
    p.add_argument("--max-failures", type=int,
                   help="stop after this many failed actions or steps in a row (default 5)")
    p.add_argument("--planning-interval", type=int, metavar="N",
                   help="re-plan every N steps, not only when one fails (default 0: only then)")
    p.add_argument("--max-actions-per-step", type=int, metavar="N",
                   help="actions run from one navigator answer (default 5)")
    p.add_argument("--min-interval", type=float, metavar="SECONDS", dest="min_interval_s",
                   help="at least this long between two actions (default 0.5)")
    p.add_argument("--clicks-per-minute", type=int, metavar="N", help="at most N clicks a minute (default 20)")
    p.add_argument("--allow-domain", action="append", metavar="GLOB",
                   help="the browser stays on these hosts, e.g. shop.example.com or '*.example.com' "
                        "(repeatable); secrets are typed only there")
    p.add_argument("--allow-scheme", action="append", metavar="SCHEME",
                   help="let pages open addresses of this scheme too, e.g. file (repeatable; only "
                        "http(s) and about:blank otherwise; never javascript)")
    add_budget_flags(p)
    p.add_argument("--secret", action="append", metavar="NAME=VALUE",
                   help="a secret the model can type as <secret:NAME> without seeing it (repeatable)")
    p.add_argument("--secrets-file", type=Path, metavar="FILE", help="secrets as NAME=VALUE lines")


def run_options(settings: Settings, goal: str, url: str | None, dialects: dict[str, Dialect]) -> RunOptions:
    policy = SafetyPolicy(min_interval_s=settings.min_interval_s, clicks_per_minute=settings.clicks_per_minute)
    return RunOptions(
        goal=goal, url=url, max_steps=settings.max_steps, max_failures=settings.max_failures,
        max_actions_per_step=settings.max_actions_per_step, planning_interval=settings.planning_interval,
        # The desktop has nothing but pixels: its model always sees the screen.
        vision=settings.vision or settings.operator == "desktop", coords=settings.coords, dialects=dialects,
        allow_domains=settings.allow_domain, allow_schemes=settings.allow_scheme, allow_risky=settings.allow_risky,
        approval_timeout_s=settings.approval_timeout_s, policy=policy,
    )

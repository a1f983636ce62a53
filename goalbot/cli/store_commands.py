"""The commands that read the store: `sessions --plain`, `report`, `tail`, and `doctor`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path
from typing import Callable

from goalbot.service.settings import Settings
from goalbot.cli.terminal import coloured, colours_wanted, fail, has_terminal
from goalbot.events import Event
from goalbot.text import eventfmt
from goalbot.text.eventfmt import printable
from goalbot.text.severity import severity
from storage import batches, queries
from storage.db import StoreError, connect, opened


def cmd_sessions(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    if has_terminal() and not args.plain:
        from goalbot.cli.dashboard import cmd_sessions_screen

        return cmd_sessions_screen(args, settings, db_path)
    with opened(db_path, create=False) as db:
        rows = queries.list_sessions(db, limit=args.limit, status=args.status)
    if not rows:
        print("no sessions stored yet")
        return 0
    print(f"{'SESSION':<22} {'STATUS':<11} {'STEPS':>5} {'CALLS':>5} {'TOKENS':>7} {'COST':>8}  {'GOAL':<40}  WHY IT ENDED")
    for row in rows:
        cost = "–" if row.cost_usd is None else f"${row.cost_usd:.4f}"
        why = " ".join((row.finish_reason or "").split())
        print(f"{row.id:<22} {row.status:<11} {row.steps:>5} {row.model_calls:>5} "
              f"{row.tokens:>7} {cost:>8}  {printable(row.goal[:40]):<40}  {printable(why[:80])}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from storage.stats import stats

    if args.since is not None:
        try:
            date.fromisoformat(args.since)
        except ValueError:
            return fail(f"--since wants a day as YYYY-MM-DD, not {args.since!r}")
    with opened(db_path, create=False) as db:
        if args.batch and not batches.exists(db, args.batch):
            return fail(f"no batch {args.batch} in {db_path}")
        figures = stats(db, recipe=args.recipe, since=args.since, batch=args.batch)
    if args.json:
        print(figures.model_dump_json())
        return 0
    which = f"recipe {args.recipe}'s reruns" if args.recipe else "runs"
    which += f" of batch {args.batch}" if args.batch else ""
    print(f"{figures.runs} {which}" + (f" since {args.since}" if args.since else "") + " (seed 002 §12)")
    if not figures.runs:
        return 0
    for label, value in (
            ("succeeded", f"{figures.succeeded:.0%}"), ("mean time", f"{figures.mean_seconds:.1f} s"),
            ("model calls per run", f"{figures.model_calls_per_run:.2f}"),
            ("tokens per run", f"{figures.tokens_per_run:,.0f}"), ("recipe reruns", str(figures.reruns)),
            ("patched by the model", f"{figures.patch_rate:.0%}"),
            ("failed again after a patch", f"{figures.refail_after_patch:.0%}"),
            ("healing memory hits", f"{figures.memory_hit_rate:.0%}"),
            ("checkpoint wait", f"{figures.checkpoint_wait_seconds:.1f} s")):
        print(f"  {label:<28} {value}")
    for slo in figures.slos:
        verdict = "no reruns yet" if slo.met is None else ("met" if slo.met else "NOT met")
        shown = "" if slo.value is None else f"{slo.value:.2f} " if "calls" in slo.name else f"{slo.value:.0%} "
        print(f"  SLO {slo.name} {slo.target}: {shown}{verdict}")
    return 0


def cmd_report(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    with opened(db_path, create=False) as db:
        session_id = args.session or queries.latest_session_id(db)
        row = queries.session_row(db, session_id) if session_id else None
    if row is None:
        return fail(f"no session {args.session} in {db_path}" if args.session else "no sessions stored yet")
    markdown = row.report if not row.running else None
    if not markdown:
        from goalbot.service.reports import store_report

        markdown = store_report(db_path, row.id)
    if markdown and colours_wanted():  # read on a terminal: drawn; piped: the Markdown itself
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(markdown))
    else:
        print(markdown or "", end="")
    return 0


def cmd_tail(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    db = connect(db_path, create=args.follow)  # following may start before the first run
    render: Callable[[Event], str] = eventfmt.json_line if args.json else eventfmt.line
    if not args.json and colours_wanted():
        render = lambda event: coloured(eventfmt.line(event), severity(event))  # noqa: E731
    rows = queries.recent_events(db, args.lines, args.session)
    last = rows[-1][0] if rows else queries.last_event_id(db)
    if not rows and not args.follow:
        print("no events stored yet", file=sys.stderr)
    for _, event in rows:
        print(render(event), flush=True)
    while args.follow:
        time.sleep(0.25)
        for last, event in queries.events_after(db, last, args.session):
            print(render(event), flush=True)
    return 0


DOCTOR_WORDS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def cmd_doctor(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Each thing a run needs, a line each; exit 1 when one of them cannot serve a run."""
    from goalbot.llm.probe import probe_endpoint
    from goalbot.operators.browser.locate import BrowserNotFound, find_browser, playwright_chromium
    from goalbot.operators.display import display_problem

    problems = 0
    try:
        choice = find_browser(settings.browser_path)
        if choice.path is None and playwright_chromium() is None:
            raise BrowserNotFound("no Chromium: apt-get install chromium, or playwright install chromium")
        print(f"ok    browser: {choice.describe()}")
    except BrowserNotFound as exc:
        problems += 1
        print(f"FAIL  browser: {exc}")
    try:
        connect(db_path).close()
        print(f"ok    store: {db_path}")
    except StoreError as exc:
        problems += 1
        print(f"FAIL  store: {exc}")
    key = "set" if settings.api_key.get_secret_value() else "not set"
    print(f"info  model: {settings.model} at {settings.base_url} (API key {key})")
    report = probe_endpoint(settings.base_url, settings.api_key.get_secret_value(),
                            [settings.model, *settings.role_models().values()])
    for finding in report.findings:
        print(f"{DOCTOR_WORDS[finding.level]}  model: {finding.text}")
    problems += not report.usable
    display = os.environ.get("DISPLAY")
    trouble = display_problem() if display else None
    if trouble:
        print(f"warn  display: {trouble}; browsers run with --headless only")
    else:
        print(f"ok    display: {display or 'none (the browser runs headless)'}")
    return 1 if problems else 0


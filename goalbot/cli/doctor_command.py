"""`goalbot doctor`: each thing a run needs, a line each."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from goalbot.service.settings import Settings
from storage.db import StoreError, connect

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
                            [settings.model, *settings.role_models().values()], wait_for_start=True)
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

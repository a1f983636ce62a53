"""`goalbot doctor`: each thing a run needs, a line each (or one JSON document)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from goalbot.service.settings import Settings
from storage.db import StoreError, connect

DOCTOR_WORDS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "info": "info"}


def cmd_doctor(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Each thing a run needs; exit 1 when one of them cannot serve a run."""
    checks = _checks(settings, db_path)
    if args.json:
        print(json.dumps({"usable": all(level != "fail" for _, level, _ in checks),
                          "checks": [{"what": what, "level": level, "text": text} for what, level, text in checks]},
                         ensure_ascii=False))
    else:
        for what, level, text in checks:
            print(f"{DOCTOR_WORDS[level]}  {what}: {text}")
    return 1 if any(level == "fail" for _, level, _ in checks) else 0


def _remembered(settings: Settings) -> list[tuple[str, str, str]]:
    """What runs found this endpoint accepts, kept so that the next run asks that way at once."""
    from goalbot.llm.endpoint_traits import recalled

    found = []
    for model in dict.fromkeys([settings.model, *settings.role_models().values()]):
        found += [("model", "info", f"{model}: {words}") for words in recalled(settings.base_url, model).words()]
    return found or [("model", "info", "no refusal remembered for this endpoint: runs ask with tool calls, "
                                       "tool_choice and (with --dialect structured) response_format until refused")]


def _checks(settings: Settings, db_path: Path) -> list[tuple[str, str, str]]:
    from goalbot.llm.probe import probe_endpoint
    from goalbot.operators.browser.locate import BrowserNotFound, find_browser, playwright_chromium
    from goalbot.operators.display import display_problem

    checks: list[tuple[str, str, str]] = []
    try:
        choice = find_browser(settings.browser_path)
        if choice.path is None and playwright_chromium() is None:
            raise BrowserNotFound("no Chromium: apt-get install chromium, or playwright install chromium")
        checks.append(("browser", "ok", choice.describe()))
    except BrowserNotFound as exc:
        checks.append(("browser", "fail", str(exc)))
    try:
        connect(db_path).close()
        checks.append(("store", "ok", str(db_path)))
    except StoreError as exc:
        checks.append(("store", "fail", str(exc)))
    key = "set" if settings.api_key.get_secret_value() else "not set"
    checks.append(("model", "info", f"{settings.model} at {settings.base_url} (API key {key})"))
    report = probe_endpoint(settings.base_url, settings.api_key.get_secret_value(),
                            [settings.model, *settings.role_models().values()], wait_for_start=True)
    checks.extend(("model", finding.level, finding.text) for finding in report.findings)
    checks.extend(_remembered(settings))
    display = os.environ.get("DISPLAY")
    trouble = display_problem() if display else None
    if trouble:
        checks.append(("display", "warn", f"{trouble}; browsers run with --headless only"))
    else:
        checks.append(("display", "ok", display or "none (the browser runs headless)"))
    return checks

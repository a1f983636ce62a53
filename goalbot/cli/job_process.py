"""One batch job as its own `goalbot run` or `goalbot rerun` process, unattended, its result a JSON
line on stdout; the same for a local batch and a Celery worker."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from pathlib import Path

from goalbot.cli.settings import Settings
from goalbot.text.eventfmt import printable
from storage import queries
from storage.db import opened

PR_SET_PDEATHSIG = 1
SHARED_PACE = "GOALBOT_SHARED_PACE"  # "store", or a broker's redis:// address


def command(job_argv: list[str], settings: Settings, db_path: Path,
            shared_pace: str = "store") -> tuple[list[str], dict[str, str]]:
    """The command line and environment of a job's process; the API key only in its environment.
    Its pace per site is shared with every other job's (`shared_pace`: the store, or a broker)."""
    model = [*(["--base-url", settings.base_url] if settings.base_url else []),
             *(["--model", settings.model] if settings.model else [])]
    pace = ["--min-interval", str(settings.min_interval_s), "--burst", str(settings.burst),
            "--clicks-per-minute", str(settings.clicks_per_minute)]
    env = {**os.environ, SHARED_PACE: shared_pace}
    if settings.api_key.get_secret_value():
        env["OPENAI_API_KEY"] = settings.api_key.get_secret_value()  # never on a command line
    return [sys.executable, "-m", "goalbot", "--db", str(db_path), *job_argv, *model, *pace], env


def dies_with_parent() -> None:
    """A job's process ends when whatever started it does, killed or not: the job runs again."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


def outcome(out: bytes, err: bytes, returncode: int | None, db_path: Path) -> tuple[str, str | None, str]:
    """How a job's process ended: its status, its session and why, read from its result line."""
    try:
        result = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):  # it could not start: its one line says why
        last = err.decode("utf-8", "replace").strip().splitlines()
        return "failed", None, printable(last[-1] if last else f"the job's process ended with {returncode}")
    session_id = result.get("session")
    with opened(db_path) as db:
        row = queries.session_row(db, session_id) if session_id else None
    return str(result.get("status", "failed")), session_id, printable((row.finish_reason or "") if row else "")[:200]

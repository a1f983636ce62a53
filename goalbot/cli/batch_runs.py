"""One batch job run in this process (a local batch's, or a worker's), wired exactly as `goalbot run`
or `goalbot rerun` wires one: its own stored session, browser context, secrets and gates. A job
costs a browser context, not a Python process and a browser: what a worker is for."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pydantic import SecretStr

from goalbot.agents.options import RunOptions
from goalbot.agents.outcome import SessionResult
from goalbot.agents.secrets import SecretError, read_secrets_file
from goalbot.cli.batch_jobs import Job
from goalbot.cli.options import run_options
from goalbot.cli.recipe_commands import recorded_at
from goalbot.cli.request import RunRequest
from goalbot.cli.run_commands import keep_recipe
from goalbot.cli.settings import Settings
from goalbot.cli.wiring import Wiring, WiringError, wire_run
from goalbot.operators.browser.launch import BrowserOptions, SharedBrowser
from goalbot.recipes.runner import Rerun
from goalbot.recipes.variables import fill
from goalbot.text.eventfmt import printable
from storage import recipes
from storage.db import StoreError, opened


@dataclass
class JobSetup:
    """How every job of a batch runs, the same for each."""

    ask: bool = False  # a risky action waits for GO through `goalbot attach`; else it is refused
    trace: bool = False  # keep every job's Playwright trace, not only a failed job's
    secrets: dict[str, SecretStr] = field(default_factory=dict)
    shared_pace: str = "store"  # the pace per site: the store's, or a broker's (redis://…)
    cdp_url: str | None = None
    fresh_context: bool = False


@dataclass
class JobEnd:
    status: str
    session_id: str | None
    reason: str


class JobRefused(Exception):
    """The job cannot start (no such recipe, a var missing, the endpoint unusable); why, in one line."""


def secrets_of(path: Path | None) -> dict[str, SecretStr]:
    """The secrets the jobs may type, read once from a file on this machine; SecretError if it cannot be."""
    return {name: SecretStr(value) for name, value in (read_secrets_file(path) if path else {}).items()}


async def run_job(job: Job, settings: Settings, db_path: Path, setup: JobSetup,
                  on_wired: Callable[[str], None] | None = None, secrets_at: str | None = None,
                  shared: SharedBrowser | None = None) -> JobEnd:
    """Runs `job` to its end, in a context of `shared` when given; `on_wired` hears its session id
    as soon as it has one. `secrets_at` is where a recipe's secrets may be typed when this store
    did not see it recorded (a worker's copy of the coordinator's)."""
    try:
        wiring = await asyncio.to_thread(_wire, job, settings, db_path, setup, secrets_at, shared)
    except JobRefused as exc:
        return JobEnd("failed", None, printable(str(exc))[:200])
    if on_wired is not None:
        on_wired(wiring.session_id)
    result: SessionResult | None = None
    try:
        result = await wiring.session.run()
        return JobEnd(result.status.value, wiring.session_id, printable(result.reason)[:200])
    finally:
        await asyncio.shield(asyncio.to_thread(_close, wiring, db_path, result))


def _close(wiring: Wiring, db_path: Path, result: SessionResult | None) -> None:
    wiring.close(db_path)
    if result is not None:
        keep_recipe(db_path, wiring, result.status)


def _wire(job: Job, settings: Settings, db_path: Path, setup: JobSetup, secrets_at: str | None,
          shared: SharedBrowser | None) -> Wiring:
    browser = BrowserOptions(headless=True, browser_path=settings.browser_path, cdp_url=setup.cdp_url,
                             cdp_fresh_context=setup.fresh_context, trace="always" if setup.trace else "failed")
    request = RunRequest(auto_approve=True, no_tui=True, await_attach=setup.ask, browser=browser,
                         secrets=dict(setup.secrets), variables=dict(job.vars), shared_pace=setup.shared_pace)
    rerun: Rerun | None = None
    if job.recipe is not None:
        rerun, options = _rerun(job.recipe, job.vars, settings, db_path, setup, secrets_at)
    else:
        options = run_options(settings, str(job.goal), job.url)
        options.variables = dict(job.vars)
    # Nobody watches every moment of a batch: the store's replay gets paced pictures.
    options = options.model_copy(update={"pictures": "paced"})
    try:
        return wire_run(request, settings, db_path, options, can_ask=setup.ask, rerun=rerun, shared_browser=shared)
    except (WiringError, SecretError) as exc:
        raise JobRefused(str(exc)) from exc


def _rerun(name: str, values: dict[str, str], settings: Settings, db_path: Path, setup: JobSetup,
           secrets_at: str | None) -> tuple[Rerun, RunOptions]:
    try:
        with opened(db_path) as db:
            recipe = recipes.load(db, name)
            healed = recipes.heals_of(db, recipe) if recipe else {}
            recorded = (recorded_at(db, recipe) or secrets_at) if recipe else None
    except (StoreError, recipes.UnreadableRecipe) as exc:
        raise JobRefused(str(exc)) from exc
    if recipe is None:
        raise JobRefused(f"no recipe {name} in {db_path}")
    unfilled = [n for n in recipe.variables if n not in values]
    if unfilled:
        raise JobRefused(f"recipe {name} needs vars: {', '.join(unfilled)}")
    missing = [n for n in recipe.secrets if n not in setup.secrets]
    if missing:
        raise JobRefused(f"recipe {name} types secrets: {', '.join(missing)} (--secrets-file)")
    rerun = Rerun(recipe=recipe, values=values, healed=healed, secrets_at=recorded)
    recipe.start_url = fill(recipe.start_url, values)
    return rerun, run_options(settings, fill(recipe.goal, values), recipe.start_url)


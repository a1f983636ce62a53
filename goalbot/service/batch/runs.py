"""One batch job run in this process (a local batch's, or a worker's), started through the same
service as `goalbot run` or `goalbot rerun`: its own stored session, browser context, secrets and
gates. A job costs a browser context, not a Python process and a browser: what a worker is for."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from goalbot.operators.browser.launch import SharedBrowser
from goalbot.operators.browser.options import BrowserOptions
from goalbot.recipes.rerun import Rerun
from goalbot.service.batch.jobs import Job
from goalbot.service.batch.setup import JobEnd, JobSetup
from goalbot.service.refusal import Refusal
from goalbot.service.request import RunRequest
from goalbot.service.reruns import prepare_rerun
from goalbot.service.runs import Audience, Door, StartedRun
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start
from goalbot.text.eventfmt import printable


async def run_job(job: Job, settings: Settings, db_path: Path, setup: JobSetup,
                  on_wired: Callable[[str], None] | None = None, secrets_at: str | None = None,
                  shared: SharedBrowser | None = None) -> JobEnd:
    """Runs `job` to its end, in a context of `shared` when given; `on_wired` hears its session id
    as soon as it has one. `secrets_at` is where a recipe's secrets may be typed when this store
    did not see it recorded (a worker's copy of the coordinator's)."""
    try:
        started = await asyncio.to_thread(_start, job, settings, db_path, setup, secrets_at, shared)
    except Refusal as refusal:
        return JobEnd("failed", None, printable(refusal.line())[:200])
    if on_wired is not None:
        on_wired(started.session_id)
    result = await started.drive()
    return JobEnd(result.status.value, started.session_id, printable(result.reason)[:200])


def _start(job: Job, settings: Settings, db_path: Path, setup: JobSetup, secrets_at: str | None,
           shared: SharedBrowser | None) -> StartedRun:
    # Every job's full trace when asked; a failed job's actions and network only (a failed job
    # ends on a picture all the same): DOM snapshots around every call would double a job's time.
    browser = BrowserOptions(headless=True, browser_path=settings.browser_path, cdp_url=setup.cdp_url,
                             cdp_fresh_context=setup.fresh_context, trace=setup.trace,
                             trace_snapshots=setup.trace == "always")
    request = RunRequest(auto_approve=True, no_tui=True, await_attach=setup.ask, browser=browser,
                         secrets=dict(setup.secrets), variables=dict(job.vars), shared_pace=setup.shared_pace,
                         authoring_profile=setup.authoring_profile)
    rerun: Rerun | None = None
    if job.recipe is not None:
        prepared = prepare_rerun(db_path, settings, job.recipe, job.vars, set(setup.secrets), secrets_at=secrets_at)
        rerun, options = prepared.rerun(), prepared.options
    else:
        start = goal_start(db_path, settings, str(job.goal), job.url, dict(job.vars), set(setup.secrets),
                           use_recipes=setup.use_recipes)
        rerun, options = start.rerun, start.options
        if rerun is None:
            options.variables = dict(job.vars)
    # A job with --ask waits for the person who attaches, who sees what it saw.
    door = Door(settings, db_path, Audience.ATTACHED if setup.ask else Audience.NOBODY,
                endpoint_known=setup.endpoint_checked)
    return door.start(request, options, rerun, shared_browser=shared)

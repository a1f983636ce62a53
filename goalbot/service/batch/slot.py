"""A batch slot: a long-lived process (a local batch's pool process, a Celery worker's) that runs one
job after another with its event loop, Playwright and browser kept between them. A job then costs
a browser context, not a Python start and a browser launch; a browser that died is started again
for the next job."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any, Coroutine, TypeVar

from playwright.async_api import async_playwright

from goalbot.service.batch.jobs import Job
from goalbot.service.batch.runs import run_job
from goalbot.service.batch.setup import JobEnd, JobSetup
from goalbot.service.settings import Settings
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.early import kept_loop, take_driver
from goalbot.operators.browser.launch import SharedBrowser, launch_browser
from goalbot.operators.browser.options import BrowserOptions
from storage import batches
from storage.db import kept_open, opened

T = TypeVar("T")


class Slot:
    def __init__(self) -> None:
        self.loop = kept_loop()
        self.shared: SharedBrowser | None = None
        self.stores: dict[Path, sqlite3.Connection] = {}  # kept open while the slot lives: kept_open

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)

    async def browser(self, browser_path: str | None) -> SharedBrowser:
        if self.shared is not None and self.shared.browser.is_connected():
            return self.shared
        if self.shared is not None:
            with contextlib.suppress(Exception):
                await self.shared.playwright.stop()
            self.shared = None
        playwright = await take_driver() or await async_playwright().start()
        try:
            browser = await launch_browser(playwright, BrowserOptions(headless=True, browser_path=browser_path))
        except BaseException:
            await playwright.stop()
            raise
        self.shared = SharedBrowser(playwright=playwright, browser=browser)
        return self.shared

    async def job(self, job: Job, settings: Settings, db_path: Path, setup: JobSetup, **more: Any) -> JobEnd:
        """`job` in a context of this slot's browser (or of the one at `setup.cdp_url`)."""
        if db_path not in self.stores:
            kept = kept_open(db_path)
            if kept is not None:
                self.stores[db_path] = kept
        shared = None
        if setup.cdp_url is None and settings.operator != "desktop":
            try:
                shared = await self.browser(settings.browser_path)
            except OperatorError as exc:
                return JobEnd("failed", None, str(exc))
            shared.ahead = setup.open_ahead
        return await run_job(job, settings, db_path, setup, shared=shared, **more)


_THIS: Slot | None = None


def this_slot() -> Slot:
    global _THIS
    if _THIS is None:
        _THIS = Slot()
    return _THIS


def run_here(job: Job, settings: Settings, db_path: Path, setup: JobSetup, batch_id: str, n: int) -> JobEnd:
    """One job in this process's slot: what a local batch's pool process is given to do. Its
    session is written beside the job as soon as it has one, whoever is left to read its end."""

    def wired(session_id: str) -> None:
        with opened(db_path) as db:
            batches.wired(db, batch_id, n, session_id)

    slot = this_slot()
    return slot.run(slot.job(job, settings, db_path, setup, on_wired=wired))

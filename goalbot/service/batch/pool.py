"""A local batch's slots: `workers` processes, each keeping its browser from one job to the next,
each job a fresh context of it. `goalbot batch` and `goalbot eval` run their jobs through here."""

from __future__ import annotations

import asyncio
import dataclasses
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Awaitable, Callable

from goalbot.service.batch.jobs import Job
from goalbot.service.batch.setup import JobEnd, JobSetup, opens_ahead
from goalbot.service.batch.slots import run_in_slot, start_slots, stop_slots
from goalbot.service.settings import Settings
from storage import batches
from storage.batches import JobRow
from storage.db import opened

Started = Callable[[JobRow], None]
Ended = Callable[[JobRow, JobEnd], Awaitable[None] | None]


async def run_in_slots(todo: list[JobRow], settings: Settings, db_path: Path, batch_id: str, setup: JobSetup,
                       workers: int, on_start: Started | None = None, on_end: Ended | None = None,
                       slots: ProcessPoolExecutor | None = None) -> None:
    """Every job of `todo`, `workers` at once; each job's start and end are written to the store
    before `on_start`/`on_end` hear of them. `slots`: the pool `start_slots(workers)` started
    earlier, which this shuts down; else one is started here."""
    loop = asyncio.get_running_loop()

    async def one(row: JobRow, pool: ProcessPoolExecutor) -> None:
        with opened(db_path) as db:
            batches.started(db, batch_id, row.n)
        if on_start is not None:
            on_start(row)
        try:
            end = await loop.run_in_executor(pool, run_in_slot, Job.model_validate(row.spec), settings, db_path, setup,
                                             batch_id, row.n)
        except BrokenProcessPool as exc:
            # Not an end of the job's own: left for `batch resume` to run again.
            end = JobEnd("interrupted", None, f"its slot's process ended ({exc}); goalbot batch resume runs it again")
        with opened(db_path) as db:
            batches.ended(db, batch_id, row.n, end.status, end.session_id, end.reason)
        if on_end is not None:
            heard = on_end(row, end)
            if heard is not None:
                await heard

    slots_wanted = min(workers, len(todo)) or 1  # never more slots (browsers) than jobs
    setup = dataclasses.replace(setup, open_ahead=opens_ahead(slots_wanted))
    with slots or start_slots(slots_wanted) as pool:
        gate = asyncio.Semaphore(slots_wanted)  # a job counts as running only once a slot has it

        async def when_free(row: JobRow) -> None:
            async with gate:
                await one(row, pool)

        try:
            await asyncio.gather(*(when_free(row) for row in todo))
        finally:
            # Every job has ended and is in the store, or the batch was stopped (Ctrl-C): nothing is
            # left for a slot to do but take its browser apart (0.15 s), or finish a job nobody
            # waits for, which the pool's own exit would wait on.
            stop_slots(pool)

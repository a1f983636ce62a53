"""A local batch's slot processes, each started clean (spawned, whatever threads the batch runs)
and tied to the batch's life. `start_slots` can start them before the batch has loaded its own
modules and checked its jobs: a slot's Python start then overlaps the batch's, and no browser
starts before a job comes (a slot launches its browser for its first job)."""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goalbot.service.batch.jobs import Job
    from goalbot.service.batch.setup import JobEnd, JobSetup
    from goalbot.service.settings import Settings

PR_SET_PDEATHSIG = 1


def start_slots(workers: int, early: int = 0) -> ProcessPoolExecutor:
    """At most `workers` slots; `early` of them are started now, the others when a job needs one."""
    slots = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=prepared)
    for _ in range(min(early, workers)):
        slots.submit(int)  # a task of nothing: the pool starts a process for it
    return slots


def stop_slots(slots: ProcessPoolExecutor) -> None:
    """Ends the slots at once: a refused batch's, rather than after their Python start, and those
    of a batch whose jobs have all ended. Shut down, they leave nothing behind for multiprocessing
    to warn of; each slot's driver sees its pipe close and shuts its browser down itself."""
    for process in multiprocessing.active_children():  # this process starts none but slots
        process.terminate()
    slots.shutdown(wait=True, cancel_futures=True)


def prepared() -> None:
    """A slot process's start: it ends with its batch, and loads what a job runs on before one comes.
    The Playwright driver (Node, no browser) is spawned first, to boot on another core meanwhile:
    a slot's first job then waits for its browser only."""
    dies_with_parent()
    # Ctrl-C in a terminal reaches every process of the batch: the batch alone decides, ends its
    # slots and writes down which jobs were cut.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from goalbot.operators.browser.early import spawn_driver

    spawn_driver()
    import goalbot.service.batch.slot  # noqa: F401


def run_in_slot(job: Job, settings: Settings, db_path: Path, setup: JobSetup, batch_id: str, n: int) -> JobEnd:
    """What a slot is handed: one job, run by the modules `prepared` loaded. Named here, so that the
    batch hands jobs out without loading them (Playwright, the agents) itself."""
    from goalbot.service.batch.slot import run_here

    return run_here(job, settings, db_path, setup, batch_id, n)


def dies_with_parent() -> None:
    """A slot ends when the batch that started it does, killed or not: `batch resume` runs its job again."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass

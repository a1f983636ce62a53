"""The Playwright driver, a Node process, spawned before a run is prepared rather than after.

Node takes about half a second to boot, and Python spends as long importing and wiring a run. The
driver is spawned first, on the event loop the run will use later, so it boots on another core
meanwhile, and the run finds it ready. A run that never uses it (refused, or it ended before its
browser started) stops it on the way out. One process holds one early driver at most.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Playwright


class _EarlyDriver:
    def __init__(self) -> None:
        from playwright.async_api import async_playwright

        self.runner = asyncio.Runner()
        self.driver: asyncio.Task[Playwright] | None = self.runner.get_loop().create_task(async_playwright().start())
        self.runner.run(_turns(3))  # the first turn spawns the process; its handshake waits for the run

    def close(self) -> None:
        driver, self.driver = self.driver, None
        if driver is not None:
            self.runner.run(_stop(driver))
        self.runner.close()


_early: _EarlyDriver | None = None


def spawn_driver() -> None:
    """Starts the driver booting now; the run's `run_loop()` and `take_driver()` pick it up."""
    global _early
    if _early is None:
        _early = _EarlyDriver()


def kept_loop() -> asyncio.AbstractEventLoop:
    """The loop a process keeps for its life (a batch's slot runs every job on it): the early
    driver's, which the first browser started on it then takes; a new loop when none was spawned."""
    return _early.runner.get_loop() if _early is not None else asyncio.new_event_loop()


@contextlib.contextmanager
def run_loop() -> Iterator[asyncio.Runner]:
    """The runner whose loop holds the early driver (else a new one), closed on leaving, with the
    driver stopped if nothing took it."""
    if _early is None:
        with asyncio.Runner() as runner:
            yield runner
        return
    try:
        yield _early.runner
    finally:
        discard_driver()


async def take_driver() -> Playwright | None:
    """The early driver, once, to a browser started on the loop it was spawned on; None else."""
    loop = asyncio.get_running_loop()
    if _early is None or _early.driver is None or _early.runner.get_loop() is not loop:
        return None
    driver, _early.driver = _early.driver, None
    return await driver


def discard_driver() -> None:
    """Stops a driver no run took (say, the request was refused before its loop ran), and its loop."""
    global _early
    early, _early = _early, None
    if early is not None:
        early.close()


async def _turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def _stop(driver: asyncio.Task[Playwright]) -> None:
    """Stops the driver, at once: one still booting is cancelled (its process is killed with
    it), not waited for — a refused run must not take half a second longer to say so."""
    if not driver.done():
        driver.cancel()
    with contextlib.suppress(BaseException):
        await (await driver).stop()

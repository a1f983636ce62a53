"""A batch's progress on one redrawn line of a terminal: done, running, failed, the rate and the
time left."""

from __future__ import annotations

import sys
import time


class Progress:
    """Done / running / failed, the rate and what is left, on one redrawn line of a terminal."""

    def __init__(self, total: int, drawn: bool) -> None:
        self.total, self.drawn, self.started_at = total, drawn, time.monotonic()
        self.running = self.done = self.failed = 0

    def started(self) -> None:
        self.running += 1
        self._draw()

    def ended(self, ok: bool) -> None:
        self.running -= 1
        self.done += 1
        self.failed += 0 if ok else 1
        self._draw()

    def lost(self) -> None:
        """An attempt whose worker was lost: its job runs again, counted once."""
        self.running = max(0, self.running - 1)
        self._draw()

    def _draw(self) -> None:
        if not self.drawn:
            return
        took = time.monotonic() - self.started_at
        rate = self.done / took if took > 0 else 0.0
        left = f", about {(self.total - self.done) / rate:.0f} s left" if rate else ""
        bar = "█" * (20 * self.done // max(self.total, 1))
        print(f"\r[{bar:<20}] {self.done}/{self.total} done · {self.running} running · {self.failed} failed · "
              f"{rate * 60:.1f} jobs/min{left}   ", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.drawn:
            print(file=sys.stderr)

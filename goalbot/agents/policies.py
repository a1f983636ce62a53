"""The safety policies of seed 000 §4, enforced in code: each says when it fires and why, and the
caller turns that into a POLICY event.

- the same click (the same element, or a click at a point within `repeat_radius_px` of the last)
  `repeat_limit` times without the page changing is refused;
- a pace between actions (a few may run back to back, then one per `min_interval_s` on
  average: a limit on what a site sees, not a delay on every action), and a cap on clicks per
  minute;
- confidence below `low_confidence` `low_confidence_limit` times in a row: wait, look again;
- `no_progress_steps` failed steps in a row on a page that did not change: ask the person.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Protocol

from pydantic import BaseModel, Field

from goalbot import defaults as D
from goalbot.payloads import PolicyName


class SafetyPolicy(BaseModel):
    repeat_radius_px: float = Field(30.0, ge=0)
    repeat_limit: int = Field(3, ge=2)
    min_interval_s: float = Field(D.MIN_INTERVAL_S, ge=0, description="Between two actions, on average.")
    burst: int = Field(D.BURST, ge=1, description="Actions that may run back to back before the pace applies.")
    clicks_per_minute: int = Field(D.CLICKS_PER_MINUTE, ge=1)
    low_confidence: float = Field(0.3, ge=0, le=1)
    low_confidence_limit: int = Field(3, ge=1)
    low_confidence_wait_s: float = Field(2.0, ge=0)
    no_progress_steps: int = Field(3, ge=2)


@dataclass(frozen=True)
class ClickAt:
    """Where a click lands: the element's index when it has one, and the point."""

    index: int | None
    point: tuple[float, float] | None

    def same_place(self, other: ClickAt, radius: float) -> bool:
        if self.index is not None and other.index is not None:
            # Two elements of one look are two places however close: the buttons of a table's rows.
            return self.index == other.index
        if self.point and other.point:
            return math.dist(self.point, other.point) <= radius
        return False


class RepeatGuard:
    """Counts the same click on a page that its clicks did not change."""

    def __init__(self, radius: float, limit: int) -> None:
        self.radius = radius
        self.limit = limit
        self._last: ClickAt | None = None
        self._page_after = ""
        self._streak = 0

    def refuses(self, click: ClickAt, page_now: str) -> bool:
        """Whether this click would be the `limit`-th on an unchanged page."""
        return self._continues(click, page_now) and self._streak + 1 >= self.limit

    def record(self, click: ClickAt, page_before: str, page_after: str) -> None:
        unchanged = bool(page_before) and page_before == page_after
        if self._continues(click, page_before) and unchanged:
            self._streak += 1
        else:
            self._streak = 1 if unchanged else 0
        self._last, self._page_after = click, page_after

    def _continues(self, click: ClickAt, page_now: str) -> bool:
        return (self._last is not None and bool(page_now) and page_now == self._page_after
                and click.same_place(self._last, self.radius))


class RateLimiter:
    """How long to wait before the next action so neither the pace nor the click cap is broken.

    The pace is a token bucket: it holds `burst` actions and refills one every `min_interval_s`,
    so the actions of one answer run at the browser's speed while no stretch of a run goes faster
    than the interval on average. A burst of one is a plain minimum interval.
    """

    def __init__(self, policy: SafetyPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self.clock = clock
        self._tokens = float(policy.burst)
        self._filled_at: float | None = None
        self._clicks: deque[float] = deque()

    def wait_before(self, click: bool) -> tuple[float, PolicyName | None]:
        now = self.clock()
        while self._clicks and now - self._clicks[0] >= 60.0:
            self._clicks.popleft()
        waits: list[tuple[float, PolicyName]] = []
        if self._filled_at is not None:
            short = 1.0 - self._tokens_at(now)
            waits.append((short * self.policy.min_interval_s, PolicyName.MIN_INTERVAL))
        if click and len(self._clicks) >= self.policy.clicks_per_minute:
            waits.append((self._clicks[0] + 60.0 - now, PolicyName.CLICKS_PER_MINUTE))
        if not waits:
            return 0.0, None
        seconds, why = max(waits)
        return max(0.0, seconds), why

    def record(self, click: bool) -> None:
        now = self.clock()
        self._tokens = max(0.0, self._tokens_at(now) - 1.0)
        self._filled_at = now
        if click:
            self._clicks.append(now)

    def _tokens_at(self, now: float) -> float:
        if self._filled_at is None:
            return self._tokens
        if self.policy.min_interval_s <= 0:
            return float(self.policy.burst)
        refilled = (now - self._filled_at) / self.policy.min_interval_s
        return min(float(self.policy.burst), self._tokens + refilled)


class SitePace(Protocol):
    """A pace kept per site by every run that acts on it (the jobs of a batch, on any worker): the
    same token bucket as `RateLimiter`'s, with its state shared."""

    def reserve(self, site: str, interval_s: float, burst: int) -> float:
        """Takes the site's next slot; how many seconds to wait for it."""
        ...


def next_slot(tat: float, now: float, interval_s: float, burst: int) -> tuple[float, float]:
    """The generic cell rate algorithm (one number per site, the theoretical arrival time): the
    wait before this action and the site's next `tat`. `burst` actions may run back to back, then
    one per `interval_s` on average."""
    tat = max(tat, now)
    return max(0.0, tat - interval_s * (burst - 1) - now), tat + interval_s


class Streak:
    """Counts a condition in a row; `note` says when the count reaches `limit` (and starts over)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def note(self, hit: bool) -> bool:
        self.count = self.count + 1 if hit else 0
        if self.count >= self.limit:
            self.count = 0
            return True
        return False

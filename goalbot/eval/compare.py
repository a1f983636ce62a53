"""Two scorecards side by side on the same episodes (same task, same seed), paired: what differs is
the model, the dialect or the authoring profile, not the problems. Whether the difference is beyond
noise is McNemar's exact test on the episodes one got right and the other did not."""

from __future__ import annotations

from math import comb

from pydantic import BaseModel

from goalbot.eval.scorecard import Scorecard

BEYOND_NOISE = 0.05


class Comparison(BaseModel):
    paired: int
    only_first: int  # episodes the first succeeded on and the second did not
    only_second: int
    first_rate: float
    second_rate: float
    p_value: float
    unpaired: int  # episodes that only one of the two ran

    @property
    def difference(self) -> float:
        return self.second_rate - self.first_rate

    @property
    def beyond_noise(self) -> bool:
        return self.paired > 0 and self.p_value < BEYOND_NOISE


class NothingPaired(ValueError):
    pass


def compare(first: Scorecard, second: Scorecard) -> Comparison:
    ones = {(e.task, e.seed): e.success for e in first.scored}  # one not run pairs with nothing
    twos = {(e.task, e.seed): e.success for e in second.scored}
    shared = sorted(ones.keys() & twos.keys())
    if not shared:
        raise NothingPaired("the two scorecards share no episode (the same task with the same seed): "
                            "run both with the same --tasks, --episodes and --seed")
    only_first = sum(ones[key] and not twos[key] for key in shared)
    only_second = sum(twos[key] and not ones[key] for key in shared)
    return Comparison(paired=len(shared), only_first=only_first, only_second=only_second,
                      first_rate=sum(ones[key] for key in shared) / len(shared),
                      second_rate=sum(twos[key] for key in shared) / len(shared),
                      p_value=mcnemar_exact(only_first, only_second),
                      unpaired=len(ones.keys() ^ twos.keys()))


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided: how likely a split at least this uneven of the b + c discordant pairs is, were
    the two equally good."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)

"""What an eval measured: each episode, each task, and the whole, with a 95% interval on success
that stays honest for a handful of episodes (Wilson's)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from goalbot.text.regular_file import read_regular_text

Z95 = 1.959963984540054


class UnreadableScorecard(ValueError):
    """One line naming the file."""


class EpisodeResult(BaseModel):
    task: str
    seed: int
    goal: str
    success: bool
    reward: float | None  # the page's own reward (MiniWoB's, 1 or less; a demo's 1 or 0); None: never ended
    status: str  # the session's end: ok, failed, cancelled, …
    reason: str = ""
    session: str | None = None
    calls: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    ran: bool = Field(True, description="False: it never started (its check or its browser failed, its "
                                        "slot's process ended), so it says nothing about the model.")


class Interval(BaseModel):
    low: float
    high: float


class TaskScore(BaseModel):
    task: str
    episodes: int
    successes: int
    calls: int
    tokens: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


class Scorecard(BaseModel):
    """An eval's result, as `--json` writes it and `--compare` reads it back."""

    model: str
    base_url: str
    dialect: str
    authoring_profile: str | None = None
    batch: str | None = None
    started_at: str
    seconds: float
    episodes: list[EpisodeResult] = Field(default_factory=list)
    stopped: str = Field("", description="Why the eval ended before every episode did (Ctrl-C): its "
                                          "episodes that had not ended are marked not run.")

    @property
    def scored(self) -> list[EpisodeResult]:
        """The episodes that ran: one that never started is no failure of the model's."""
        return [episode for episode in self.episodes if episode.ran]

    @property
    def not_run(self) -> list[EpisodeResult]:
        return [episode for episode in self.episodes if not episode.ran]

    @property
    def successes(self) -> int:
        return sum(episode.success for episode in self.scored)

    @property
    def rate(self) -> float:
        return self.successes / len(self.scored) if self.scored else 0.0

    @property
    def interval(self) -> Interval:
        return wilson(self.successes, len(self.scored))

    @property
    def calls(self) -> int:
        return sum(episode.calls for episode in self.episodes)

    @property
    def tokens(self) -> int:
        return sum(episode.tokens for episode in self.episodes)

    @property
    def cost_usd(self) -> float | None:
        costs = [episode.cost_usd for episode in self.episodes if episode.cost_usd is not None]
        return sum(costs) if costs else None

    def tasks(self) -> list[TaskScore]:
        by_task: dict[str, list[EpisodeResult]] = defaultdict(list)
        for episode in self.scored:
            by_task[episode.task].append(episode)
        return [TaskScore(task=task, episodes=len(found), successes=sum(e.success for e in found),
                          calls=sum(e.calls for e in found), tokens=sum(e.tokens for e in found),
                          seconds=sum(e.seconds for e in found))
                for task, found in by_task.items()]

    @classmethod
    def read(cls, path: Path) -> Scorecard:
        """A scorecard `goalbot eval --out` wrote; UnreadableScorecard if it is not one."""
        try:
            return cls.model_validate_json(read_regular_text(path))  # a FIFO is refused, never waited on
        except OSError as exc:
            raise UnreadableScorecard(f"cannot read {path}: {exc.strerror}") from exc
        except (ValidationError, UnicodeDecodeError) as exc:
            raise UnreadableScorecard(f"{path} is not a scorecard written by goalbot eval --out") from exc

    def summary(self) -> dict[str, object]:
        """The whole in figures, for `--json` beside the episodes."""
        interval = self.interval
        return {"episodes": len(self.scored), "not_run": len(self.not_run), "successes": self.successes,
                "success_rate": round(self.rate, 4),
                "interval_95": [round(interval.low, 4), round(interval.high, 4)], "model_calls": self.calls,
                "tokens": self.tokens, "cost_usd": self.cost_usd, "seconds": round(self.seconds, 1),
                "tasks": [{"task": t.task, "episodes": t.episodes, "successes": t.successes,
                           "success_rate": round(t.rate, 4), "model_calls": t.calls, "tokens": t.tokens}
                          for t in self.tasks()]}


def wilson(successes: int, trials: int) -> Interval:
    if trials == 0:
        return Interval(low=0.0, high=1.0)
    share = successes / trials
    denominator = 1 + Z95 ** 2 / trials
    centre = (share + Z95 ** 2 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(share * (1 - share) / trials + Z95 ** 2 / (4 * trials ** 2)) / denominator
    return Interval(low=max(0.0, centre - half), high=min(1.0, centre + half))

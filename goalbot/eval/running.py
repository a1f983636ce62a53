"""One eval: its sites up, its episodes' goals read, every episode checked as a batch job would be
and then run in batch slots (each its own stored session, judged by its page), into a scorecard."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from pydantic import SecretStr

from goalbot.demo.site import DEMO_EMAIL, DemoSite
from goalbot.eval.episodes import Episode, plan_episodes, read_goals
from goalbot.eval.miniwob_site import MiniwobSite
from goalbot.eval.recording import RecordingFailed, record_reruns
from goalbot.eval.scorecard import EpisodeResult, Scorecard
from goalbot.eval.tasks import ALL, DEMO_OF, EvalTask
from goalbot.service.batch.checking import check_jobs
from goalbot.service.batch.jobs import Job
from goalbot.service.batch.pool import run_in_slots
from goalbot.service.batch.setup import JobEnd, JobSetup
from goalbot.service.checks import endpoint_refusal
from goalbot.service.refusal import Refusal, Say
from goalbot.service.settings import Settings
from storage import batches, queries
from storage.batches import JobRow
from storage.db import opened

SHOP_CHOICE = ["reading-lamp"]  # the most expensive lamp under 40 that is in stock


@dataclass
class EvalPlan:
    tasks: list[EvalTask]
    episodes: int = 1
    seed: int = 0
    workers: int = 2
    authoring_profile: str | None = None

    def command(self) -> str:
        """The eval's words, as its batch's source: the same tasks, episodes and seed are the same problems."""
        names = "" if len(self.tasks) == len(ALL) else f" --tasks {','.join(task.name for task in self.tasks)}"
        return f"{batches.EVAL_SOURCE}{names} --episodes {self.episodes} --seed {self.seed}"


class EvalRefused(Exception):
    """The eval cannot start; nothing ran."""


def run_eval(plan: EvalPlan, settings: Settings, db_path: Path, say: Say,
             heard: Callable[[EpisodeResult, int, int], None]) -> Scorecard:
    """Runs every episode of `plan`; `heard` hears each result as its episode ends."""
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    began = time.monotonic()
    planned = plan_episodes(plan.tasks, plan.episodes, plan.seed, secrets.token_hex(4))
    dead: Refusal | None = endpoint_refusal(settings, say)  # asked once, before any browser starts
    if dead is not None:
        raise EvalRefused(dead.line())
    with contextlib.ExitStack() as stack:
        site = stack.enter_context(MiniwobSite()) if any(e.task.source == "miniwob" for e in planned) else None
        demo_sites = {e.n: stack.enter_context(DemoSite()) for e in planned if e.task.source == "demo"}
        asyncio.run(read_goals(planned, site, {n: demo.url for n, demo in demo_sites.items()}, settings.browser_path))
        try:
            asyncio.run(record_reruns(planned, demo_sites, db_path, settings.browser_path))
        except RecordingFailed as exc:
            raise EvalRefused(str(exc)) from exc
        handed = {name: SecretStr(value) for e in planned for name, value in e.secrets.items()}
        setup = JobSetup(use_recipes=False, authoring_profile=plan.authoring_profile, secrets=handed,
                         endpoint_checked=True)
        jobs = [(e.n, Job(recipe=e.recipe) if e.recipe else Job(goal=e.goal, url=e.url, vars=e.variables))
                for e in planned]
        _check(jobs, settings, db_path, set(setup.secrets), say)
        with opened(db_path) as db:
            batch_id = batches.new_batch(db, plan.command(), plan.workers, [job.model_dump(exclude_none=True)
                                                                            for _, job in jobs])
            rows = batches.jobs(db, batch_id)
        card = Scorecard(model=settings.model, base_url=settings.base_url, dialect=",".join(settings.dialect) or "auto",
                         authoring_profile=plan.authoring_profile, batch=batch_id, started_at=started_at, seconds=0.0)
        by_n = {e.n: e for e in planned}
        began_at: dict[int, float] = {}

        def started(row: JobRow) -> None:
            began_at[row.n] = time.monotonic()

        def ended(row: JobRow, end: JobEnd) -> None:
            episode = by_n[row.n]
            reward = _reward(episode, site, demo_sites.get(row.n))
            result = _result(episode, end, reward, time.monotonic() - began_at.get(row.n, began), db_path)
            card.episodes.append(result)
            heard(result, len(card.episodes), len(planned))

        try:
            asyncio.run(run_in_slots(rows, settings, db_path, batch_id, setup, plan.workers, started, ended))
        except KeyboardInterrupt:
            # Stopped (Ctrl-C): the episodes that ended are the scorecard's, the others marked not run.
            card.stopped = f"stopped after {len(card.episodes)} of {len(planned)} episodes"
            heard_of = {(result.task, result.seed) for result in card.episodes}
            card.episodes += [_not_ended(e) for e in planned if (e.task.name, e.seed) not in heard_of]
        finally:  # cut short (Ctrl-C): the pages of what did not end close with this eval
            with opened(db_path) as db:
                batches.cut_short(db, batch_id, f"{plan.command()} ended before this episode did")
    order = {(e.task.name, e.seed): e.n for e in planned}
    card.episodes.sort(key=lambda result: order[(result.task, result.seed)])
    card.seconds = time.monotonic() - began
    return card


def _not_ended(episode: Episode) -> EpisodeResult:
    return EpisodeResult(task=episode.task.name, seed=episode.seed, goal=episode.goal, success=False, reward=None,
                         status="cancelled", reason="the eval was stopped before this episode ended", ran=False)


def _check(jobs: list[tuple[int, Job]], settings: Settings, db_path: Path, names: set[str], say: Say) -> None:
    """The checks every batch job passes, before any episode starts."""
    bad = check_jobs(jobs, settings, db_path, names, say, endpoint=False)
    if bad:
        first = bad[0]
        raise EvalRefused(f"episode {first.n} cannot run: {first.refusal.line()} [{first.refusal.code}]")


def _reward(episode: Episode, site: MiniwobSite | None, demo: DemoSite | None) -> float | None:
    """The page's own judgement: MiniWoB's reward, or what the demo site records as done."""
    if episode.task.source == "miniwob":
        found = site.reward(episode.key) if site is not None else None
        return None if found is None else found.raw
    if demo is None:
        return None
    record = demo.state.snapshot()
    if DEMO_OF[episode.task.name] == "signin":  # the sign-in and its rerun: is dark mode on?
        return 1.0 if record["dark_mode"].get(DEMO_EMAIL) else 0.0  # type: ignore[attr-defined]
    return 1.0 if record.get("cart") == SHOP_CHOICE else 0.0


def _result(episode: Episode, end: JobEnd, reward: float | None, seconds: float, db_path: Path) -> EpisodeResult:
    row = None
    if end.session_id is not None:
        with opened(db_path) as db:
            row = queries.session_row(db, end.session_id)
    return EpisodeResult(task=episode.task.name, seed=episode.seed, goal=episode.goal,
                         success=reward is not None and reward > 0, reward=reward, status=end.status,
                         reason=end.reason, session=end.session_id, seconds=round(seconds, 2),
                         calls=row.model_calls if row else 0, tokens=(row.tokens_in + row.tokens_out) if row else 0,
                         cost_usd=row.cost_usd if row else None, ran=end.session_id is not None)

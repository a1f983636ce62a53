"""A batch's jobs, each checked as its door checks a single run — before the first browser starts,
so a bad line costs nothing and is named with every other bad line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from goalbot.service.batch.jobs import Job
from goalbot.service.checks import endpoint_refusal
from goalbot.service.refusal import Refusal, Say
from goalbot.service.reruns import prepare_rerun
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start


@dataclass
class BadJob:
    n: int
    refusal: Refusal


def check_jobs(jobs: list[tuple[int, Job]], settings: Settings, db_path: Path, secret_names: set[str] | None,
               say: Say, endpoint: bool = True) -> list[BadJob]:
    """Every job that would be refused, with why. `secret_names` None and `endpoint` off for jobs
    that run on workers, which have their own secrets and model endpoint."""
    bad: list[BadJob] = []
    planned: list[int] = []  # goal jobs no stored recipe does: these need the model
    for n, job in jobs:
        try:
            if job.recipe is not None:
                prepare_rerun(db_path, settings, job.recipe, job.vars, secret_names)
            elif goal_start(db_path, settings, str(job.goal), job.url, dict(job.vars), secret_names).rerun is None:
                planned.append(n)
        except Refusal as refused:
            bad.append(BadJob(n, refused))
    if endpoint and not bad and planned:
        dead = endpoint_refusal(settings, say)  # asked once for the batch, not once a job
        if dead is not None:
            bad.extend(BadJob(n, dead) for n in planned)
    return bad

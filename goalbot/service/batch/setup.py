"""What every job of a batch shares, and how a job ended: what the batch itself handles, while only
its slots load what runs a job (Playwright, the agents)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import SecretStr

from goalbot.agents.secrets import read_secrets_file
from goalbot.service.batch.jobs import TraceKept


@dataclass
class JobSetup:
    """How every job of a batch runs, the same for each."""

    ask: bool = False  # a risky action waits for GO through `goalbot attach`; else it is refused
    # A Playwright trace of no job, a failed job or every job: recording one costs a short job a
    # sixth of its time, for a trace that a job which ends well throws away.
    trace: TraceKept = "off"
    secrets: dict[str, SecretStr] = field(default_factory=dict)
    shared_pace: str = "store"  # the pace per site: the store's, or a broker's (redis://…)
    cdp_url: str | None = None
    fresh_context: bool = False
    use_recipes: bool = True  # False: every goal is planned, as an eval of the model needs
    authoring_profile: str | None = None  # --authoring-profile vN for every job; None: the pinned one
    # The batch asked the endpoint once before its jobs: no job asks it again.
    endpoint_checked: bool = False
    open_ahead: bool = True  # a slot opens its next job's context while a job runs (`opens_ahead`)


@dataclass
class JobEnd:
    status: str
    session_id: str | None
    reason: str


def opens_ahead(slots: int) -> bool:
    """Whether each of `slots` slots should open its next job's context and tab while a job runs.
    That work is free only on a core no slot is using: with one slot on two cores a job starts about
    0.1 s sooner, while with as many slots as cores or more it takes CPU from the jobs themselves
    (on two cores, 3% fewer jobs a minute with two slots, 6% with four)."""
    return slots < _cores()


def _cores() -> int:
    """The cores this process may run on (Linux); the machine's elsewhere."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def secrets_of(path: Path | None) -> dict[str, SecretStr]:
    """The secrets the jobs may type, read once from a file on this machine; SecretError if it cannot be."""
    return {name: SecretStr(value) for name, value in (read_secrets_file(path) if path else {}).items()}

"""What every job of a batch shares, and how a job ended: what the batch itself handles, while only
its slots load what runs a job (Playwright, the agents)."""

from __future__ import annotations

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


@dataclass
class JobEnd:
    status: str
    session_id: str | None
    reason: str


def secrets_of(path: Path | None) -> dict[str, SecretStr]:
    """The secrets the jobs may type, read once from a file on this machine; SecretError if it cannot be."""
    return {name: SecretStr(value) for name, value in (read_secrets_file(path) if path else {}).items()}

"""One `goalbot tune` round, wired: a stored session holds its model calls (so `goalbot sessions`
and `stats` count what tuning cost), the task and reflection models go through goalbot's client,
and what comes out is kept as the next authoring profile."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field

from goalbot.authoring.bank import Bank
from goalbot.authoring.engine import GoalbotEngine, Loop, Meter
from goalbot.authoring.harness import Harness
from goalbot.authoring.tuning import TunePlan, Tuner
from goalbot.events import Actor, Bus, Emitter, EventType, new_session_id
from goalbot.llm.client import ModelClient, ModelConfig, ModelError
from goalbot.llm.profiles import PROGRAMS, AuthoringProfile, TunedOn, Weights
from goalbot.llm.usage import PriceTable
from storage import profiles
from storage.db import connect
from storage.recorder import Recorder


class RoundSettings(BaseModel):
    budget: int = Field(ge=1)
    bar: float = 0.82
    weights: Weights = Field(default_factory=Weights)
    examples: int = Field(1, ge=0)
    cost_ceiling: int = Field(6000, ge=1)


@dataclass
class Models:
    config: ModelConfig  # role_models["reflector"]: the reflection model, when another
    prices: PriceTable


def run_round(db_path: Path, bank: Bank, plan: TunePlan, settings: RoundSettings, models: Models,
              parent: AuthoringProfile | None, say: Callable[[str], None]) -> AuthoringProfile:
    """The next profile: the programs tuned here, and the parent's others as they were. Raises
    ModelError when the endpoint stopped answering (nothing is kept then)."""
    recorder, bus = Recorder(db_path), Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, new_session_id())
    config = models.config
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, None, goal="goalbot tune: the authoring profile's next round",
                 model=config.model, base_url=config.base_url, operator="none", max_steps=1,
                 models={"author": config.model_for("author"), "reflector": config.model_for("reflector")})
    try:
        return _round(db_path, bank, plan, settings, models, parent, say, emitter)
    finally:
        recorder.close()


def _round(db_path: Path, bank: Bank, plan: TunePlan, settings: RoundSettings, models: Models,
           parent: AuthoringProfile | None, say: Callable[[str], None], emitter: Emitter) -> AuthoringProfile:
    config = models.config
    client, loop, meter = ModelClient(config, emitter, models.prices), Loop(), Meter(settings.budget)
    try:
        tuner = Tuner(GoalbotEngine(client, "author", loop, meter), GoalbotEngine(client, "reflector", loop, meter),
                      meter, Harness(settings.weights, settings.cost_ceiling), settings.examples, say)
        tuned = {p.program: tuner.tune(p) for p in plan.programs}
    except ModelError as exc:
        emitter.emit(EventType.TASK_FAIL, Actor.SYSTEM, None, reason=f"tuning stopped: {exc}")
        raise
    finally:
        loop.run(client.close())
        loop.close()
    # A program this round did not tune keeps the parent's instructions (and their scores): pinning
    # the new profile must not drop what an earlier round found.
    programs = {**(parent.programs if parent else {}), **tuned}
    heldout = sum(p.after.tasks for p in programs.values())
    score = sum(p.after.score * p.after.tasks for p in programs.values()) / heldout if heldout else 0.0
    before = sum(p.before.score * p.before.tasks for p in programs.values()) / heldout if heldout else 0.0
    profile = AuthoringProfile(
        model=config.model_for("author"), reflection_model=config.model_for("reflector"), base_url=config.base_url,
        programs=programs, score=round(score, 4), before=round(before, 4), bar=settings.bar, weights=settings.weights,
        promoted=score >= settings.bar, budget=settings.budget, calls=meter.calls, tokens=meter.tokens,
        tune_session=emitter.session_id, parent=parent.version if parent else None,
        data=TunedOn(sessions=bank.sessions, spec_file=bank.spec_file,
                     tasks={p: len(bank.of(p)) for p in PROGRAMS}),
    )
    db = connect(db_path)
    try:
        kept = profiles.save(db, profile)
    finally:
        db.close()
    emitter.emit(EventType.TASK_OK, Actor.SYSTEM, None,
                 reason=f"{kept.name}: held-out score {kept.score:.2f} (before {kept.before:.2f}), "
                        f"{meter.calls} model calls", answer=kept.name)
    return kept

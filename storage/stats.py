"""Seed 002 §12's operating metrics over a set of stored sessions (a recipe's reruns, a day's runs,
everything): how often runs succeed, how long they take, what they cost in model calls and
tokens, how often recipes needed the model's patch (and how many, and whether one was enough) and
failed again after one, which rung of the ladder found their elements and how often healing
memory found what recorded evidence no longer did, and how long checkpoints waited for a person —
with the seed's two SLOs said met or not."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from goalbot.payloads import Rung

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

CALLS_PER_NORMAL_RUN = 0.2  # seed 002 §12: a rerun of a recipe asks the model this rarely, or less
SUCCESS_FROM_SECOND_RUN = 0.95  # and succeeds this often from its second run on


class Slo(BaseModel):
    name: str
    target: str
    value: float | None = Field(description="None: no run it applies to yet.")
    met: bool | None = None


READ_BY = ("network", "places", "document", "ocr", "model")  # the reading ladder's rungs, the model last


class Stats(BaseModel):
    runs: int = 0
    succeeded: float = Field(0.0, description="The share of runs that reached their goal.")
    mean_seconds: float = 0.0
    model_calls_per_run: float = 0.0
    tokens_per_run: float = 0.0
    reruns: int = Field(0, description="Of the runs, recipe reruns.")
    patch_rate: float = Field(0.0, description="The share of reruns the model patched.")
    refail_after_patch: float = Field(0.0, description="The share of reruns of a patched version that failed.")
    memory_hit_rate: float = Field(0.0, description="Of the elements found again, the share healing memory found.")
    no_model_share: float = Field(0.0, description="The share of reruns that asked the model nothing.")
    patches_per_rerun: float = 0.0
    healed_within_one_patch: float = Field(0.0, description="Of the reruns the model patched, the share that "
                                                            "ended well after a single patch.")
    rungs: dict[str, float] = Field(default_factory=dict, description="How the reruns' elements were found: "
                                    "the share each rung of the ladder found, the recorded evidence first.")
    extraction_rungs: dict[str, float] = Field(
        default_factory=dict, description="How the data that fit its schema was read: the share each rung read "
        "(network: the page's JSON; places: the page; document: a downloaded PDF's lines; ocr: the words in its "
        "pictures; model: the extractor).")
    checkpoint_wait_seconds: float = Field(0.0, description="Mean wait of a checkpoint for its person's answer.")
    slos: list[Slo] = Field(default_factory=list)


def stats(db: sqlite_utils.Database, recipe: str | None = None, since: str | None = None,
          batch: str | None = None) -> Stats:
    """The metrics over every ended session, or a recipe's reruns, or those started on or after
    `since`, or a batch's jobs (every attempt of each)."""
    where, params = ["s.ended_at is not null"], list[str]()
    if batch:
        where.append("s.id in (select session_id from batch_jobs where batch_id = ? "
                     "union select session_id from batch_attempts where batch_id = ?)")
        params += [batch, batch]
    if since:
        where.append("s.started_at >= ?")
        params.append(since)
    if recipe:
        where.append("json_extract(e.data, '$.options.recipe') = ?")
        params.append(recipe)
    rows = db.execute(
        "select s.id, s.status, s.started_at, s.ended_at, s.model_calls, s.tokens_in + s.tokens_out, "
        "json_extract(e.data, '$.options.recipe'), json_extract(e.data, '$.options.recipe_version') "
        "from sessions s join events e on e.session_id = s.id and e.type = 'TASK_START' "
        f"where {' and '.join(where)} order by s.started_at", params).fetchall()
    if not rows:
        return Stats(slos=_slos([]))
    ids = [row[0] for row in rows]
    reruns = [row for row in rows if row[6]]
    marks = ",".join("?" * len(ids))
    patches = dict(db.execute(
        f"select session_id, count(*) from events where session_id in ({marks}) and type = 'POLICY' "
        "and json_extract(data, '$.policy') = 'recipe_patch' and json_extract(data, '$.message') like 'patched:%' "
        "group by session_id", ids).fetchall())
    patched_reruns = [row for row in reruns if row[0] in patches]
    made_by_patch = {(row[0], row[1]) for row in db.execute(
        "select v.name, v.version from recipe_versions v join events e on e.session_id = v.source_session "
        "and e.type = 'TASK_START' and json_extract(e.data, '$.options.recipe') is not null")} \
        if db["recipe_versions"].exists() else set()
    after_patch = [row for row in reruns if (row[6], row[7]) in made_by_patch]
    rungs = dict(db.execute(
        f"select json_extract(data, '$.resolved_by'), count(*) from events where session_id in ({marks}) "
        "and type = 'ACT_OK' and json_extract(data, '$.resolved_by') is not null group by 1", ids).fetchall())
    healing = sum(rungs.get(rung.value, 0) for rung in Rung if not rung.as_recorded)
    found = sum(rungs.values())
    reads = dict(db.execute(
        f"select coalesce(json_extract(data, '$.read_by'), 'model'), count(*) from events where session_id in "
        f"({marks}) and type = 'EXTRACTED' and json_extract(data, '$.valid') group by 1", ids).fetchall())
    return Stats(
        runs=len(rows),
        succeeded=_share(row[1] == "ok" for row in rows),
        mean_seconds=sum(_seconds(row[2], row[3]) for row in rows) / len(rows),
        model_calls_per_run=sum(row[4] or 0 for row in rows) / len(rows),
        tokens_per_run=sum(row[5] or 0 for row in rows) / len(rows),
        reruns=len(reruns),
        patch_rate=_share(row[0] in patches for row in reruns),
        refail_after_patch=_share(row[1] != "ok" for row in after_patch),
        memory_hit_rate=rungs.get(Rung.MEMORY.value, 0) / healing if healing else 0.0,
        no_model_share=_share(not row[4] for row in reruns),
        patches_per_rerun=sum(patches.get(row[0], 0) for row in reruns) / len(reruns) if reruns else 0.0,
        healed_within_one_patch=_share(row[1] == "ok" and patches[row[0]] == 1 for row in patched_reruns),
        rungs={rung.value: rungs[rung.value] / found for rung in Rung if rungs.get(rung.value)},
        extraction_rungs={rung: reads[rung] / sum(reads.values()) for rung in READ_BY if reads.get(rung)},
        checkpoint_wait_seconds=_checkpoint_wait(db, ids, marks),
        slos=_slos(reruns),
    )


def _slos(reruns: list[Any]) -> list[Slo]:
    calls = sum(row[4] or 0 for row in reruns) / len(reruns) if reruns else None
    # "From the second run": a recipe's first run is the one it was recorded from, so its reruns count.
    success = _share(row[1] == "ok" for row in reruns) if reruns else None
    return [Slo(name="model calls per normal run", target=f"≤ {CALLS_PER_NORMAL_RUN:g}", value=calls,
                met=None if calls is None else calls <= CALLS_PER_NORMAL_RUN),
            Slo(name="success from the second run", target=f"≥ {SUCCESS_FROM_SECOND_RUN:.0%}", value=success,
                met=None if success is None else success >= SUCCESS_FROM_SECOND_RUN)]


def _checkpoint_wait(db: sqlite_utils.Database, ids: list[str], marks: str) -> float:
    """Mean seconds between a checkpoint's question and its answer."""
    waits, asked = [], dict[str, str]()
    for session_id, kind, ts in db.execute(
            f"select session_id, type, ts from events where session_id in ({marks}) and type in "
            "('APPROVAL_REQUEST', 'APPROVAL_GRANTED', 'APPROVAL_DENIED') "
            "and json_extract(data, '$.kind') = 'checkpoint' order by session_id, seq", ids):
        if kind == "APPROVAL_REQUEST":
            asked[session_id] = ts
        elif session_id in asked:
            waits.append(_seconds(asked.pop(session_id), ts))
    return sum(waits) / len(waits) if waits else 0.0


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def _seconds(start: str, end: str) -> float:
    return max(0.0, (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds())

"""Recipes in the store: every version kept whole, and the heals reruns found (healing memory)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from pydantic import ValidationError

from goalbot.recipes.model import Evidence, Metrics, Recipe
from goalbot.payloads import Rung

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


class UnreadableRecipe(ValueError):
    """A stored version that no longer reads as a recipe (kept by an older goalbot, or damaged)."""


def _now() -> str:
    return datetime.now().astimezone().isoformat()


def latest_version(db: sqlite_utils.Database, name: str) -> int:
    row = db.execute("select max(version) from recipe_versions where name = ?", [name]).fetchone()
    return int(row[0] or 0)


def save(db: sqlite_utils.Database, recipe: Recipe) -> Recipe:
    """Keeps `recipe` as the next version of its name; returns it with that version."""
    with db.conn:
        kept = recipe.model_copy(update={"version": latest_version(db, recipe.name) + 1})
        db.execute("insert into recipe_versions (name, version, created_at, source_session, data) "
                   "values (?, ?, ?, ?, ?)",
                   [kept.name, kept.version, _now(), kept.source_session, kept.model_dump_json()])
    return kept


def load(db: sqlite_utils.Database, name: str, version: int | None = None) -> Recipe | None:
    """The recipe `name` at `version` (the latest when None); None when there is no such one."""
    version = version or latest_version(db, name)
    row = db.execute("select data from recipe_versions where name = ? and version = ?", [name, version]).fetchone()
    return _read(name, version, row[0]) if row else None


def _read(name: str, version: int, data: str) -> Recipe:
    try:
        return Recipe.model_validate_json(data)
    except (ValidationError, ValueError) as exc:
        raise UnreadableRecipe(f"recipe {name} v{version} in the store is unreadable ({str(exc).splitlines()[0]}); "
                               f"goalbot recipe delete {name} removes it") from exc


def listed(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """One row a recipe: its name, latest version, goal, and when that version was made."""
    rows = db.execute(
        "select v.name, v.version, v.created_at, v.data from recipe_versions v join "
        "(select name, max(version) as latest from recipe_versions group by name) m "
        "on v.name = m.name and v.version = m.latest order by v.name").fetchall()
    found = []
    for name, version, created_at, data in rows:
        try:
            recipe = _read(name, version, data)
        except UnreadableRecipe:  # one bad version must not hide every other recipe
            found.append({"name": name, "version": version, "created_at": created_at,
                          "goal": "(unreadable: goalbot recipe delete removes it)", "steps": 0, "actions": 0})
            continue
        found.append({"name": name, "version": version, "created_at": created_at, "goal": recipe.goal,
                      "steps": len(recipe.steps), "actions": len(recipe.actions)})
    return found


def latest_starting(db: sqlite_utils.Database, wanted: Callable[[str], bool]) -> list[Recipe]:
    """The latest version of each recipe whose start address `wanted` takes, read whole; only
    those are parsed, and one that no longer reads is left out."""
    rows = db.execute(
        "select v.name, v.version, v.data from recipe_versions v join "
        "(select name, max(version) as latest from recipe_versions group by name) m "
        "on v.name = m.name and v.version = m.latest order by v.name").fetchall()
    found = []
    for name, version, data in rows:
        try:  # a damaged row is left out here, as `listed` leaves it: not a reason for a rerun to fail
            start_url = json.loads(data).get("start_url")
            if isinstance(start_url, str) and wanted(start_url):
                found.append(_read(name, version, data))
        except (ValueError, AttributeError, UnreadableRecipe):
            continue
    return found


def delete(db: sqlite_utils.Database, name: str) -> int:
    """Deletes every version of `name` and its heals; how many versions there were."""
    with db.conn:
        count = db.execute("delete from recipe_versions where name = ?", [name]).rowcount
        db.execute("delete from recipe_heals where name = ?", [name])
    return int(count)


def remember_heals(db: sqlite_utils.Database, recipe: Recipe, heals: dict[int, Evidence], session_id: str) -> None:
    with db.conn:
        for position, evidence in heals.items():
            db.execute("insert or replace into recipe_heals (name, version, position, session_id, healed_at, "
                       "evidence) values (?, ?, ?, ?, ?, ?)",
                       [recipe.name, recipe.version, position, session_id, _now(), evidence.model_dump_json()])


def heals_of(db: sqlite_utils.Database, recipe: Recipe) -> dict[int, Evidence]:
    rows = db.execute("select position, evidence from recipe_heals where name = ? and version = ?",
                      [recipe.name, recipe.version]).fetchall()
    healed: dict[int, Evidence] = {}
    for position, evidence in rows:
        try:
            healed[int(position)] = Evidence.model_validate_json(evidence)
        except (ValidationError, ValueError):
            continue  # a damaged heal is a heal forgotten: the ladder finds the element again
    return healed


def kept_by(db: sqlite_utils.Database, session_id: str) -> tuple[list[str], int]:
    """What a session left for later runs: the recipe versions made from it ("darkmode v2") and
    how many heals it put into healing memory."""
    versions = [f"{name} v{version}" for name, version in db.execute(
        "select name, version from recipe_versions where source_session = ? order by name, version", [session_id])]
    heals = db.execute("select count(*) from recipe_heals where session_id = ?", [session_id]).fetchone()[0]
    return versions, int(heals)


def of_sessions(db: sqlite_utils.Database, ids: list[str]) -> dict[str, str]:
    """Each session's part in a recipe, in a few words: "rerun darkmode v1" (and "→v2" when a patch
    made the next version), or "saved darkmode v1" for a run a recipe was made from."""
    if not ids or not db["recipe_versions"].exists():  # a store read as it is may predate recipes
        return {}
    marks = ",".join("?" * len(ids))
    made: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for session_id, name, version in db.execute(
            f"select source_session, name, version from recipe_versions where source_session in ({marks}) "
            "order by version", ids):
        made.setdefault(session_id, []).append(version)
        names[session_id] = name
    parts = {session_id: f"saved {names[session_id]} v{versions[0]}" for session_id, versions in made.items()}
    for session_id, name, version in db.execute(
            "select session_id, json_extract(data, '$.options.recipe'), json_extract(data, '$.options.recipe_version') "
            f"from events where type = 'TASK_START' and session_id in ({marks}) "
            "and json_extract(data, '$.options.recipe') is not null", ids):
        patched = f"→v{made[session_id][-1]}" if session_id in made else ""
        parts[session_id] = f"rerun {name} v{version}{patched}"
    return parts


def metrics(db: sqlite_utils.Database, name: str) -> Metrics:
    """Seed 002 §12 for one recipe, over every rerun of it in the store: runs, success rate, model
    calls per run, the share of runs the model patched, how often a patched version failed again,
    and how often healing memory found what the recorded evidence no longer did."""
    runs = db.execute(
        "select s.id, s.status, s.model_calls, json_extract(e.data, '$.options.recipe_version') from sessions s "
        "join events e on e.session_id = s.id and e.type = 'TASK_START' "
        "where json_extract(e.data, '$.options.recipe') = ?", [name]).fetchall()
    ids = [row[0] for row in runs]
    if not ids:
        return Metrics()
    marks = ",".join("?" * len(ids))
    patched = {row[0] for row in db.execute(
        f"select distinct session_id from events where session_id in ({marks}) and type = 'POLICY' "
        "and json_extract(data, '$.policy') = 'recipe_patch' and json_extract(data, '$.message') like 'patched:%'",
        ids)}
    rungs = dict(db.execute(
        f"select json_extract(data, '$.resolved_by'), count(*) from events where session_id in ({marks}) "
        "and type = 'ACT_OK' group by 1", ids).fetchall())
    made_by_patch = {row[0] for row in db.execute(
        "select version from recipe_versions where name = ? and source_session in "
        "(select session_id from events where type = 'TASK_START' and json_extract(data, '$.options.recipe') = ?)",
        [name, name])}
    after_patch = [row for row in runs if row[3] in made_by_patch]
    healing = sum(rungs.get(rung.value, 0) for rung in Rung if not rung.as_recorded)
    return Metrics(
        runs=len(runs),
        success_rate=sum(row[1] == "ok" for row in runs) / len(runs),
        model_calls_per_run=sum(row[2] or 0 for row in runs) / len(runs),
        patch_rate=len(patched) / len(runs),
        refail_after_patch=(sum(row[1] != "ok" for row in after_patch) / len(after_patch)) if after_patch else 0.0,
        memory_hit_rate=rungs.get(Rung.MEMORY.value, 0) / healing if healing else 0.0,
    )

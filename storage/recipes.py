"""Recipes in the store: every version kept whole, and the heals reruns found (healing memory)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlite_utils

from goalbot.recipes.model import Evidence, Recipe


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
    return Recipe.model_validate_json(row[0]) if row else None


def listed(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """One row a recipe: its name, latest version, goal, and when that version was made."""
    rows = db.execute(
        "select v.name, v.version, v.created_at, v.data from recipe_versions v join "
        "(select name, max(version) as latest from recipe_versions group by name) m "
        "on v.name = m.name and v.version = m.latest order by v.name").fetchall()
    found = []
    for name, version, created_at, data in rows:
        recipe = Recipe.model_validate_json(data)
        found.append({"name": name, "version": version, "created_at": created_at, "goal": recipe.goal,
                      "steps": len(recipe.steps), "actions": len(recipe.actions)})
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
    return {int(position): Evidence.model_validate_json(evidence) for position, evidence in rows}

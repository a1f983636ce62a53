"""Keeping recipes in the store on a person's behalf: one made from a session, the heals a rerun
found, the next version a patched rerun earned. Both `run` (--save-recipe, a rerun's end) and
`recipe` keep them through here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.recipes.branching import without_ways
from goalbot.recipes.build import RecipeError, build
from goalbot.recipes.model import Recipe
from goalbot.service.refusal import Say
from storage import queries, recipes
from storage.db import opened

if TYPE_CHECKING:  # a rerun's modules load the browser's; keeping a recipe needs none of them
    from goalbot.recipes.runner import RecipeRun


def save_from_session(db_path: Path, session_id: str, name: str, variables: dict[str, str]) -> Recipe:
    """Raises RecipeError with a line for the person."""
    with opened(db_path) as db:
        if queries.session_row(db, session_id) is None:
            raise RecipeError(f"no session {session_id} in {db_path} (see goalbot sessions)")
        return recipes.save(db, build(name, queries.session_events(db, session_id), variables))


def remember_heals(db_path: Path, run: RecipeRun, say: Say) -> None:
    """What the rerun found by re-finding is healing memory: the next rerun takes a cheaper rung."""
    if not run.heals:
        return
    with opened(db_path) as db:
        recipes.remember_heals(db, run.recipe, run.heals, run.session_id)
    say(f"{len(run.heals)} healed elements remembered for recipe {run.recipe.name}")


def keep_patched(db_path: Path, run: RecipeRun, say: Say) -> None:
    """A rerun the model patched and that then ended well is the recipe's next version."""
    with opened(db_path) as db:
        kept = recipes.save(db, run.next_version().model_copy(update={"source_session": run.session_id}))
    say(f"the patched recipe is kept as {kept.name} v{kept.version} ({'; '.join(run.patches)})")


def drop_failed_ways(db_path: Path, run: RecipeRun, say: Say) -> None:
    """A way the rerun took because its condition held, and that then failed, is left out of the
    next version: the next rerun on that page takes the recorded way, or patches anew."""
    recipe = run.rerun.recipe
    with opened(db_path) as db:
        if recipes.latest_version(db, recipe.name) != recipe.version:
            return  # a newer version was kept meanwhile: it is not this rerun's to change
        kept = recipes.save(db, without_ways(recipe, run.failed_ways).model_copy(
            update={"source_session": run.session_id}))
    steps = ", ".join(f"step {number}" for number, _ in run.failed_ways)
    say(f"the way taken at {steps} failed: recipe {kept.name} v{kept.version} is kept without it")

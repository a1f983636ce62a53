"""A goal finds its recipe, for every door that takes a goal: the stored recipes whose goal, as a
template, surely says the same acts as the goal typed (`recipes.finding`), on the same site,
become a rerun with the values bound from the goal; anything less is a normal run.

Only a recipe this store saw recorded, or one the person has rerun, is ever found: an imported
file must not choose what a typed goal does. Its secrets are typed only where `prepare_rerun`
allows, as for a rerun named by hand."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from goalbot.agents.domains import host_of
from goalbot.recipes.finding import match
from goalbot.recipes.model import Recipe
from goalbot.recipes.variables import fill
from goalbot.service.refusal import Refusal
from goalbot.service.reruns import PreparedRerun, prepare_rerun, recorded_at
from goalbot.service.settings import Settings
from storage import recipes
from storage.db import StoreError, opened


@dataclass
class Found:
    prepared: PreparedRerun
    said: str  # "from recipe cart v1, PRODUCT = Copper Teapot": what the plan dialog and the log say


def find_recipe(db_path: Path, settings: Settings, goal: str, url: str | None, given: dict[str, str],
                secret_names: set[str] | None) -> Found | None:
    """The rerun that does `goal`, when exactly one stored recipe surely does it; else None.
    `given`: --var values, which win over the goal's words."""
    if not db_path.exists():
        return None
    sure: list[tuple[Recipe, dict[str, str]]] = []
    try:
        with opened(db_path) as db:
            for recipe in recipes.latest_starting(db, lambda _url: True):
                fitted = match(goal, recipe.goal)
                if fitted is None or not fitted.sure:
                    continue
                values = {**fitted.values, **given}
                if url and host_of(url) != host_of(fill(recipe.start_url, values)):
                    continue
                if recorded_at(db, recipe) is None and not recipes.metrics(db, recipe.name).runs:
                    continue  # imported and never rerun here: not the person's own yet
                sure.append((recipe, values))
    except (StoreError, recipes.UnreadableRecipe):
        return None  # no store to read is no recipe to find: the goal is planned as ever
    if len(sure) != 1:
        return None  # two recipes that both fit: the planner, not a guess, decides
    recipe, values = sure[0]
    try:
        prepared = prepare_rerun(db_path, settings, recipe.name, values, secret_names, url=url)
    except Refusal:
        return None  # a secret or a value it needs is not at hand: a normal run
    bound = "".join(f", {name} = {value}" for name, value in values.items() if name in recipe.variables)
    return Found(prepared, f"from recipe {recipe.name} v{recipe.version}{bound}")

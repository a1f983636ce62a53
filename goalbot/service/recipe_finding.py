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
from goalbot.recipes.finding import found_line, match
from goalbot.recipes.model import Recipe
from goalbot.recipes.variables import VARIABLE, fill
from goalbot.service.refusal import Refusal
from goalbot.service.reruns import SECRETS_HINT, PreparedRerun, SecretsNeeded, prepare_rerun, recorded_at
from goalbot.service.settings import Settings
from storage import recipes
from storage.db import StoreError, opened


@dataclass
class Found:
    prepared: PreparedRerun
    said: str  # "from recipe cart v1, PRODUCT = Copper Teapot": what the plan dialog and the log say
    unsure: str = ""  # why the goal's words did not surely fit: the matcher binds, the person chooses


def find_recipe(db_path: Path, settings: Settings, goal: str, url: str | None, given: dict[str, str],
                secret_names: set[str] | None, unsure_ok: bool = False) -> Found | None:
    """The rerun that does `goal`, when exactly one stored recipe surely does it; else None.
    `given`: --var values, which win over the goal's words. `unsure_ok` (a person approves the
    plan): with no sure fit, the one recipe of the same acts on the site whose other words did
    not fit, its variables left for the matcher to bind in the run."""
    if not db_path.exists():
        return None
    sure: list[tuple[Recipe, dict[str, str]]] = []
    unsure: list[tuple[Recipe, str]] = []
    try:
        with opened(db_path) as db:
            for recipe in recipes.latest_starting(db, lambda _url: True):
                fitted = match(goal, recipe.goal)
                if fitted is None:
                    continue
                values = {**fitted.values, **given}
                start = fill(recipe.start_url, values)
                if VARIABLE.search(start) or url and host_of(url) != host_of(start):
                    continue
                if recorded_at(db, recipe) is None and not recipes.metrics(db, recipe.name).runs:
                    continue  # imported and never rerun here: not the person's own yet
                if fitted.sure:
                    sure.append((recipe, values))
                else:
                    unsure.append((recipe, fitted.why))
    except (StoreError, recipes.UnreadableRecipe):
        return None  # no store to read is no recipe to find: the goal is planned as ever
    if len(sure) == 1:
        recipe, values = sure[0]
        prepared = _prepared(db_path, settings, recipe, values, secret_names, url, sure=True)
        bound = {name: value for name, value in values.items() if name in recipe.variables}
        return Found(prepared, found_line(recipe.name, recipe.version, bound)) if prepared else None
    if sure or not unsure_ok or len(unsure) != 1:
        return None  # two recipes that both fit, or an unsure one nobody chooses: the planner decides
    recipe, why = unsure[0]
    slots = {found.group(1): "" for found in VARIABLE.finditer(recipe.goal)}  # bound by the matcher, in the run
    prepared = _prepared(db_path, settings, recipe, {**slots, **given}, secret_names, url)
    return Found(prepared, f"maybe recipe {recipe.name} v{recipe.version}", why) if prepared else None


def _prepared(db_path: Path, settings: Settings, recipe: Recipe, values: dict[str, str],
              secret_names: set[str] | None, url: str | None, sure: bool = False) -> PreparedRerun | None:
    """The rerun, or None to plan the goal as ever. A recipe that surely does the goal but types a
    secret the request lacks is refused by name: planned instead, the run failed later on something
    else (the model's endpoint), and nothing said which recipe or which `--secret` it wanted."""
    try:
        return prepare_rerun(db_path, settings, recipe.name, values, secret_names, url=url)
    except SecretsNeeded as needed:
        if not sure:
            return None
        raise Refusal("bad_input", f"the goal fits recipe {recipe.name} v{recipe.version}, which types "
                      f"secrets: pass {' '.join(f'--secret {name}=…' for name in needed.names)}",
                      f"--no-recipes plans the goal instead; {SECRETS_HINT}") from needed
    except Refusal:
        return None  # a value it needs is not at hand, or its start page is off the list: a normal run

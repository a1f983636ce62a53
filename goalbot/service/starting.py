"""A goal's run options, checked once for every door: the goal itself, the settings that shape the
run, and its start page; then the stored recipe that already does it, if one surely does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.agents.options import RunOptions
from goalbot.llm.dialects import DialectError
from goalbot.service.checks import check_goal, check_start_url, domains_for
from goalbot.service.refusal import Refusal
from goalbot.service.run_setup import run_options
from goalbot.service.settings import Settings

if TYPE_CHECKING:  # the runner loads with the browser's modules, when a run starts
    from goalbot.recipes.rerun import Rerun


def goal_options(settings: Settings, goal: str, url: str | None) -> RunOptions:
    """The options of a run of `goal` from `url`; a `Refusal` for an empty goal, a secret in it, a
    setting that cannot be read, or a start page off the allowed schemes or sites."""
    check_goal(goal)
    try:
        options = run_options(settings, goal, url)
    except DialectError as exc:
        raise Refusal("bad_input", str(exc)) from exc
    check_start_url(url, domains_for(settings.allow_domain, settings.allow_scheme))
    return options


@dataclass
class GoalStart:
    """How a typed goal starts: planned (`rerun` None), or as the rerun of the recipe it found."""

    options: RunOptions
    rerun: Rerun | None = None
    found: str = ""  # "from recipe cart v1, PRODUCT = Copper Teapot"


def goal_start(db_path: Path, settings: Settings, goal: str, url: str | None, given: dict[str, str],
               secret_names: set[str] | None, use_recipes: bool = True, person_chooses: bool = False) -> GoalStart:
    """`goal_options`, then the recipe that surely does the goal (`--no-recipes`: none is looked
    for). `person_chooses`: a person approves the plan, so a recipe that only may do the goal is
    offered too, its values bound by the matcher in the run."""
    options = goal_options(settings, goal, url)
    if not use_recipes:
        return GoalStart(options)
    from goalbot.service.recipe_finding import find_recipe  # the store's modules, only when a goal starts

    found = find_recipe(db_path, settings, goal, url, given, secret_names, unsure_ok=person_chooses)
    if found is None:
        return GoalStart(options)
    rerun = found.prepared.rerun()
    rerun.found, rerun.unsure = found.said, found.unsure
    return GoalStart(found.prepared.options.model_copy(update={"goal": goal}), rerun, found.said)

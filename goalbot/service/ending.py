"""The one end of every run, whichever door started it: its inbox and recorder closed, its report
written, and what it leaves for later runs kept — the recipe it was asked to save, or a rerun's
heals or patched version (the report is then written again to say so)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.agents.outcome import SessionResult, Status
from goalbot.recipes.build import RecipeError
from goalbot.service.recipe_keeping import drop_failed_ways, keep_patched, remember_heals, save_from_session
from goalbot.service.refusal import Say
from goalbot.service.reports import store_report
from goalbot.service.wiring import Wiring

if TYPE_CHECKING:
    from goalbot.recipes.runner import RecipeRun


def end_run(wiring: Wiring, db_path: Path, result: SessionResult | None, save_as: str | None = None,
            variables: dict[str, str] | None = None) -> None:
    """Closes the run; with a result, keeps what it leaves. Lines for the person go to the
    wiring's `say`."""
    wiring.close(db_path)
    if result is None or wiring.recorder.failure is not None:
        return
    if _keep(wiring, db_path, result.status, save_as, variables or {}):
        store_report(db_path, wiring.session_id, wiring.say)


def _keep(wiring: Wiring, db_path: Path, status: Status, save_as: str | None, variables: dict[str, str]) -> bool:
    from goalbot.recipes.runner import RecipeRun  # the browser's modules: a run has loaded them already

    say, session = wiring.say, wiring.session
    if isinstance(session, RecipeRun):
        return _keep_from_rerun(db_path, session, status, say)
    if save_as is None or status is not Status.OK:
        return False
    try:
        recipe = save_from_session(db_path, wiring.session_id, save_as, variables)
    except RecipeError as exc:
        say(f"the recipe was not saved: {exc}")
        return False
    needs = [f"--var {name}=…" for name in recipe.variables] + [f"--secret {name}=…" for name in recipe.secrets]
    say(f"saved recipe {recipe.name} v{recipe.version} ({' '.join(['goalbot rerun', recipe.name, *needs])})")
    return True


def _keep_from_rerun(db_path: Path, run: RecipeRun, status: Status, say: Say) -> bool:
    """A rerun's patched version (once every step ran after its patch), the ways it found failing
    dropped, and its heals: True when any was kept."""
    if run.patches and status is Status.OK and run.completed:
        keep_patched(db_path, run, say)
        return True
    if run.patches and status is Status.OK:
        # The planner finished what the patched recipe could not: the patch never proved itself.
        say(f"the patched version is not kept: recipe {run.recipe.name} stopped after its patch "
            "and the goal was planned instead")
    if run.failed_ways:
        drop_failed_ways(db_path, run, say)
    remember_heals(db_path, run, say)
    return bool(run.patches and status is Status.OK or run.failed_ways or run.heals)

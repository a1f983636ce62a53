"""The one end of every run, whichever door started it: its inbox and recorder closed, its report
written, and what it leaves for later runs kept — the recipe it was asked to save, or a rerun's
heals or patched version (the report is then written again to say so)."""

from __future__ import annotations

from pathlib import Path

from goalbot.agents.outcome import SessionResult, Status
from goalbot.recipes.build import RecipeError
from goalbot.service.recipe_keeping import keep_patched, remember_heals, save_from_session
from goalbot.service.reports import store_report
from goalbot.service.wiring import Wiring


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
        if session.patches and status is Status.OK:
            keep_patched(db_path, session, say)
        elif session.heals:
            remember_heals(db_path, session, say)
        else:
            return False
        return True
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

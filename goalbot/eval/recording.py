"""The recipe a demo-rerun episode reruns: recorded on the episode's own demo site, which is then
redesigned. goalbot's scripted demo model records it, not the model under test: the task scores how
a model patches a recipe the site broke, not how it records one (demo-signin scores that)."""

from __future__ import annotations

from pathlib import Path

from goalbot.agents.outcome import Status
from goalbot.demo.goals import DEMOS
from goalbot.demo.site import DEMO_PASSWORD, DemoSite
from goalbot.eval.episodes import Episode
from goalbot.operators.browser.options import BrowserOptions
from goalbot.recipes.build import RecipeError
from goalbot.recipes.model import Recipe
from goalbot.scripted.server import Script, ScriptedModelServer
from goalbot.service.recipe_keeping import save_from_session
from goalbot.service.refusal import Refusal
from goalbot.service.request import RunRequest
from goalbot.service.run_setup import run_options
from goalbot.service.runs import Audience, Door
from goalbot.service.settings import Settings

RERUN_TASK = "demo-rerun"


class RecordingFailed(Exception):
    """A demo-rerun episode has no recipe to rerun; one line saying why."""


async def record_reruns(planned: list[Episode], sites: dict[int, DemoSite], db_path: Path,
                        browser_path: str | None) -> None:
    """Each demo-rerun episode's recipe, kept in the store by the name its job reruns, and its
    site redesigned behind it."""
    rerun_episodes = [episode for episode in planned if episode.task.name == RERUN_TASK]
    if not rerun_episodes:
        return
    script = Script.demo()
    with ScriptedModelServer(script) as model:
        # Defaults, not the person's settings: their limits (--max-calls 1) are for the model under test.
        recorder = Settings(base_url=model.base_url, model="scripted-demo", browser_path=browser_path,
                            min_interval_s=0.0)
        for episode in rerun_episodes:
            site = sites[episode.n]
            episode.recipe = f"eval-rerun-{episode.key}"
            recipe = await _record(recorder, db_path, f"{site.url}{DEMOS['signin'].page}", episode.recipe)
            # What the recording typed into the password field is kept as a secret, handed in again
            # to the rerun as a person would hand in theirs.
            episode.secrets = {name: DEMO_PASSWORD for name in recipe.secrets}
            site.redesign()


async def _record(settings: Settings, db_path: Path, url: str, name: str) -> Recipe:
    request = RunRequest(auto_approve=True, no_tui=True,
                         browser=BrowserOptions(headless=True, browser_path=settings.browser_path))
    options = run_options(settings, DEMOS["signin"].goal, url)
    try:
        started = Door(settings, db_path, Audience.NOBODY).start(request, options)
    except Refusal as refusal:
        raise RecordingFailed(f"the demo-rerun recipe could not be recorded: {refusal.line()}") from refusal
    result = await started.drive()
    if result.status is not Status.OK:
        raise RecordingFailed(f"the demo-rerun recipe could not be recorded: {result.reason}")
    try:
        return save_from_session(db_path, started.session_id, name, {})
    except RecipeError as exc:
        raise RecordingFailed(f"the demo-rerun recipe could not be kept: {exc}") from exc

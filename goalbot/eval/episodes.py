"""An eval's episodes: each a task, a seed, the goal a person would type for it and the page it
starts on. A MiniWoB page makes its problem in the browser from its seed, so its goal (the page's
own instruction) is read by loading the page once, with no episode to report."""

from __future__ import annotations

import re

from playwright.async_api import async_playwright
from pydantic import BaseModel, Field

from goalbot.demo.goals import DEMOS
from goalbot.eval.miniwob_site import MiniwobSite
from goalbot.eval.tasks import DEMO_OF, EvalTask
from goalbot.operators.browser.launch import launch_browser
from goalbot.operators.browser.options import BrowserOptions

QUERY_TIMEOUT_MS = 15_000
# A MiniWoB instruction that writes its password out: goalbot refuses a secret in a goal, so the
# password is handed in as a secret and the goal names it, as a person would be asked to.
PASSWORD = re.compile(r'(\bpassword\s+)"([^"]+)"', re.IGNORECASE)


class Episode(BaseModel):
    n: int  # 1-based, the batch job's number
    task: EvalTask
    seed: int
    key: str  # what the page reports its reward under
    goal: str = ""
    url: str = ""
    recipe: str | None = None  # a rerun's, recorded before it (demo-rerun)
    variables: dict[str, str] = Field(default_factory=dict)
    secrets: dict[str, str] = Field(default_factory=dict)


def plan_episodes(tasks: list[EvalTask], episodes: int, seed: int, prefix: str) -> list[Episode]:
    """`episodes` per task, seeds `seed`, `seed + 1`, …: the same flags are the same problems."""
    planned: list[Episode] = []
    for task in tasks:
        for k in range(episodes):
            n = len(planned) + 1
            planned.append(Episode(n=n, task=task, seed=seed + k, key=f"{prefix}-{n}"))
    return planned


async def read_goals(planned: list[Episode], site: MiniwobSite | None, demo_urls: dict[int, str],
                     browser_path: str | None) -> None:
    """Each episode's goal and page: a demo's from its definition, a MiniWoB page's from the page."""
    for episode in planned:
        if episode.task.source == "demo":
            demo = DEMOS[DEMO_OF[episode.task.name]]
            episode.goal, episode.variables = demo.goal, dict(demo.variables)
            episode.url = demo_urls[episode.n] + demo.page
    pages = [episode for episode in planned if episode.task.source == "miniwob"]
    if not pages or site is None:
        return
    async with async_playwright() as playwright:
        browser = await launch_browser(playwright, BrowserOptions(headless=True, browser_path=browser_path))
        try:
            page = await browser.new_page()
            for episode in pages:
                await page.goto(site.page(episode.task.name, episode.seed))
                await page.wait_for_function("() => (document.querySelector('#query')?.innerText || '').trim()",
                                             timeout=QUERY_TIMEOUT_MS)
                query = " ".join((await page.inner_text("#query")).split())
                episode.goal, episode.secrets = _without_passwords(query, episode.n)
                episode.url = site.page(episode.task.name, episode.seed, episode.key)
        finally:
            await browser.close()


def _without_passwords(query: str, n: int) -> tuple[str, dict[str, str]]:
    found: dict[str, str] = {}

    def named(match: re.Match[str]) -> str:
        name = f"EVAL_PASSWORD_{n}"
        found[name] = match[2]
        return f"{match[1]}<secret:{name}>"

    return PASSWORD.sub(named, query), found

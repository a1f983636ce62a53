"""A batch slot's browser, kept from one run to the next: each run gets a fresh context, and the
next run's context and tab (the spare) open while a run works. The spare must change nothing a run
relies on: nothing of the run that was working beside it reaches the next, and the domain guard
holds from the first request of a tab that was opened before the guard was there."""

from __future__ import annotations

from playwright.async_api import async_playwright

from goalbot import actions as A
from goalbot.operators.browser.launch import SharedBrowser, launch_browser
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.operator import BrowserOperator


async def test_the_next_run_takes_the_spare_tab_with_nothing_of_the_last_run_and_every_guard(hardsite) -> None:
    hardsite.reset()
    async with async_playwright() as playwright:
        shared = SharedBrowser(playwright=playwright,
                               browser=await launch_browser(playwright, BrowserOptions(headless=True)))
        try:
            first = BrowserOperator(BrowserOptions(headless=True), shared=shared)
            await first.start(hardsite.page("lure"))
            spare = shared.spare
            assert spare is not None  # opening while the first run works
            await first.page.evaluate("localStorage.setItem('left', 'behind'); document.cookie = 'left=behind'")
            await first.close()
            ready = await spare

            def own_site_only(url: str) -> bool:
                return url.startswith(hardsite.url) or url == "about:blank"

            second = BrowserOperator(BrowserOptions(headless=True, trace="failed"), allows=own_site_only,
                                     shared=shared)
            await second.start(hardsite.page("lure"))
            try:
                assert second.page is ready.ready_page  # the spare tab, not a new one
                assert shared.spare is not None and shared.spare is not spare  # the next one's
                assert await second.page.context.cookies() == []
                assert await second.page.evaluate("localStorage.getItem('left')") is None
                # The page lures the tab to another site: the guard this run attached after the tab
                # was opened stops it before any request leaves.
                observation = await second.observe(screenshot=False)
                link = next(n for n, e in observation.elements.items() if "Continue to the full recipe" in e.name)
                result = await second.execute(A.Click(index=link))
                assert not result.ok and "outside the allowed domains" in result.message, result
                assert hardsite.reached("/steal.html", which=1) == []
                # The trace began after the tab was opened, and still holds what the run did in it.
                assert await second.kept_trace(failed=True)
            finally:
                await second.close()
        finally:
            await shared.browser.close()


async def test_a_spare_whose_browser_died_is_not_taken_and_the_run_says_why(hardsite) -> None:
    async with async_playwright() as playwright:
        shared = SharedBrowser(playwright=playwright,
                               browser=await launch_browser(playwright, BrowserOptions(headless=True)))
        first = BrowserOperator(BrowserOptions(headless=True), shared=shared)
        await first.start(hardsite.page("lure"))
        await first.close()
        await shared.browser.close()
        second = BrowserOperator(BrowserOptions(headless=True), shared=shared)
        try:
            await second.start(hardsite.page("lure"))
        except Exception as exc:  # what the slot turns into the job's end, in words
            assert "closed" in str(exc).lower() or "gone" in str(exc).lower(), exc
        else:
            raise AssertionError("a run started in a browser that was closed")
        finally:
            await second.close()


async def test_a_slot_with_no_core_to_spare_opens_nothing_ahead_and_each_run_opens_its_own(hardsite) -> None:
    """With as many slots as cores (`opens_ahead`), a context opened ahead would take CPU from the
    jobs: none is opened while a run works, and the next run opens its own."""
    async with async_playwright() as playwright:
        shared = SharedBrowser(playwright=playwright, ahead=False,
                               browser=await launch_browser(playwright, BrowserOptions(headless=True)))
        try:
            contexts = []
            for _ in range(2):
                run = BrowserOperator(BrowserOptions(headless=True), shared=shared)
                await run.start(hardsite.page("lure"))
                try:
                    observation = await run.observe(screenshot=False)
                    assert any("Continue to the full recipe" in e.name for e in observation.elements.values())
                    assert shared.spare is None
                    # The run's own context, and none opened beside it (the last run's may still be closing).
                    assert [c for c in shared.browser.contexts if c not in contexts] == [run.page.context]
                    contexts.append(run.page.context)
                finally:
                    await run.close()
        finally:
            await shared.browser.close()

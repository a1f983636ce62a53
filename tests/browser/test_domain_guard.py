"""The domain guard decides at the end of each action: a navigation the action started that is
still on its way then (a form post whose server answers late with a redirect elsewhere) is waited
for, so the action that started it is the one reported stopped, and no look sees an error page."""

from __future__ import annotations

import pytest

from goalbot import actions as A
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.operator import BrowserOperator


# The form's own button, and a script that sends the form a moment after the click: either way the
# click's own handling can be over before the post is even sent.
@pytest.mark.parametrize("name", ["Save on a slow server", "Save in a moment"])
async def test_a_late_redirect_elsewhere_is_stopped_and_reported_by_the_action_that_started_it(
        hardsite, name: str) -> None:
    hardsite.reset()

    def own_site_only(url: str) -> bool:
        return url.startswith(hardsite.url) or url == "about:blank"

    operator = BrowserOperator(BrowserOptions(headless=True), allows=own_site_only)
    await operator.start(hardsite.page("bounce"))
    try:
        observation = await operator.observe(screenshot=False)
        button = next(n for n, e in observation.elements.items() if e.name == name)
        result = await operator.execute(A.Click(index=button))
        assert not result.ok and "outside the allowed domains" in result.message, result
        assert hardsite.reached("/bounce", which=0)  # the post was sent; its answer was stopped
        assert hardsite.reached("/steal.html", which=1) == []
        after = await operator.observe(screenshot=False)
        assert after.url == hardsite.page("bounce"), after.url
        assert any(e.name == name for e in after.elements.values())
    finally:
        await operator.close()

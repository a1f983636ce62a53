"""One look at a page, as the navigator would see it (`goalbot observe`, MCP `observe`): the same
rules as a run's — http(s) unless --allow-scheme, on --allow-domain when given, checked before the
browser starts and held by the browser's guard for every redirect and frame after."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from goalbot import defaults as D
from goalbot.agents.risk import js_patterns
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.operator import BrowserOperator
from goalbot.service.checks import check_start_url, domains_for


@asynccontextmanager
async def page_to_look_at(url: str, browser: BrowserOptions, allow_domains: list[str], allow_schemes: list[str],
                          budget: int = D.OBSERVATION_BUDGET) -> AsyncIterator[BrowserOperator]:
    """A browser on `url`, closed after; a `Refusal` before any browser starts for a page the rules
    shut, an OperatorError when it cannot be opened."""
    domains = domains_for(allow_domains, allow_schemes)
    check_start_url(url, domains)
    operator = BrowserOperator(browser, budget=budget, allows=domains.allows, held_words=js_patterns())
    try:
        await operator.start(url)
        yield operator
    finally:
        await operator.close()

"""Did a rerun's action do what it did the first time: the element it acted on went away, a file
downloaded, the address it led to, the state it set, what the page announced. What takes a moment
(an element going, an announcement) is waited for, as a person would, before it counts as not
done; the address is checked at once, since a navigation has settled by then."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from goalbot.agents.observing import announced
from goalbot.operators.base import Observation, Operator
from goalbot.recipes.locate import ACCEPT, plain, similarity, strictly
from goalbot.recipes.model import RecipeAction
from goalbot.recipes.scope import Scope
from goalbot.recipes.variables import names_in

EXPECT_PATIENCE_S = 3.0
POLL_S = 0.15
# Where a recording held a number the run itself made (a new object's id): any number fits there.
WILD = "*"


async def went_away(operator: Operator, index: int, patience: float = EXPECT_PATIENCE_S) -> bool:
    deadline = time.monotonic() + patience
    while not await operator.gone(index):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


def shows(observation: Observation, text: str) -> bool:
    """The page shows `text` in view: in a piece of its text or in an element's name, read as the
    ladder reads names (`plain`)."""
    wanted = plain(text)
    return any(wanted in plain(str(getattr(item, "text", "") or getattr(item, "name", "")))
               for item in observation.items)


def unsaid(wanted: list[str], observation: Observation, scrub: Callable[[str], str],
           exact: frozenset[str] = frozenset()) -> list[str]:
    """The texts of `wanted` the page does not announce now; a little drift ("Saved at 12:03" for
    "Saved at 12:01") still counts as said, but not in a text of `exact` (one holding a value):
    "Walnut Shelf Bracket added" does not say "Walnut Shelf added"."""
    if not wanted:
        return []
    said = [scrub(text) for text in announced(observation)]
    return [text for text in wanted if not any(_says(now, text, text in exact) for now in said)]


def _says(now: str, text: str, exact: bool) -> bool:
    if WILD in text and re.search(_pattern(plain(text), r"(?:\d+|\*)"), plain(now)):
        return True  # a page's own `*` ("* required") still says itself
    if not exact:
        return similarity(text, now) >= ACCEPT
    return plain(text) in plain(now)


def _pattern(text: str, number: str) -> str:
    """`text` as a regular expression in which each WILD stands for a number, the rest as written."""
    return number.join(re.escape(part) for part in text.split(WILD))


def path_fits(expected: str, path: str) -> bool:
    """The address path has the expected one as whole segments, in a row: `/product/walnut-shelf`
    is not in `/product/walnut-shelf-bracket`. A folder (`/product/`, kept when the rest varies)
    asks only that its segments lead somewhere below it. A WILD is any number, within its segment:
    `/user/*/change/` is `/user/5/change/`, not `/user/5/delete/` nor `/user/bob/change/`."""
    wanted, have = [s for s in expected.split("/") if s], [s for s in path.split("/") if s]
    if not wanted:
        return True
    return any(all(_segment_fits(want, had) for want, had in zip(wanted, have[at:at + len(wanted)]))
               for at in range(len(have) - len(wanted) + 1))


def _segment_fits(wanted: str, have: str) -> bool:
    if WILD not in wanted:
        return wanted == have
    return re.fullmatch(_pattern(wanted, r"\d+"), have) is not None


async def announced_again(look: Callable[[], Awaitable[Observation]], wanted: list[str], after: Observation,
                          scrub: Callable[[str], str], exact: frozenset[str] = frozenset(),
                          patience: float = EXPECT_PATIENCE_S) -> tuple[list[str], Observation]:
    """What of `wanted` the page never announced within `patience`, and the latest observation
    (the one the next action's indices belong to)."""
    deadline = time.monotonic() + patience
    missing = unsaid(wanted, after, scrub, exact)
    while missing and time.monotonic() < deadline:
        await asyncio.sleep(POLL_S)
        after = await look()
        missing = unsaid(wanted, after, scrub, exact)
    return missing, after


def holds_state(state: str | None, observation: Observation, index: int) -> bool:
    """The element at `index` already shows `state` ("checked" or "unchecked")."""
    element = observation.elements.get(index)
    return state is not None and element is not None and state in element.states


async def unmet_expectation(recorded: RecipeAction, downloads: int, stayed: bool, after: Observation, scope: Scope,
                            operator: Operator, look: Callable[[], Awaitable[Observation]],
                            scrub: Callable[[str], str]) -> tuple[str | None, Observation]:
    """What `recorded` did the first time and did not do now, in words (None: all of it), and the
    page after it. `stayed`: its element was to go away and did not; `downloads`: files it
    downloaded now."""
    if stayed:
        return f"{recorded.words()} is still on the page; the first time the action made it go away", after
    if recorded.expect.download and not downloads:
        return f"{recorded.words()} downloaded nothing; the first time it downloaded a file", after
    expected = "" if scope.signing_in else scope.filled(recorded.expect.url_contains or "")
    if expected and not path_fits(expected, urlsplit(after.url).path or "/"):
        return f"after it the page is {after.url}; the recipe expects {expected}", after
    if recorded.expect.state and recorded.target is not None:
        now = await strictly(scope.named(recorded.target), after, operator)
        if now is not None and not holds_state(recorded.expect.state, after, now):
            return f"after the click {recorded.words()} is not {recorded.expect.state}, the state the recipe sets", after
    wanted = [str(scope.filled(text)) for text in recorded.expect.text_appeared]
    exact = frozenset(scope.filled(text) for text in recorded.expect.text_appeared if names_in(text))
    missing, after = await announced_again(look, wanted, after, scrub, exact)
    if missing:
        return f"the page did not say {missing[0]!r} as it did the first time", after
    return None, after

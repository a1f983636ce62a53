"""What stands between the navigator's answer and the page: a page that is no web page refused, the
same click on an unchanged page refused, a risky action asked of the person (NOT GO stops the run),
and what a page tried to send behind a press held until a GO — or dropped."""

from __future__ import annotations

from typing import Any

import pytest

from goalbot import actions as A
from goalbot.actions import ActionResult, Outcome
from goalbot.agents.domains import Domains
from goalbot.agents.guards import ActionGuards, NotGo
from goalbot.agents.policies import SafetyPolicy
from goalbot.agents.risk import Risk
from goalbot.events import Bus, Emitter, Event, EventType
from goalbot.operators.base import Element, Landing, Observation


class Page:
    """The operator as the guards see it: what an action would set off, and writes held back."""

    def __init__(self, words: str = "") -> None:
        self.words, self.holds_writes = words, False
        self.dropped = self.released = 0

    async def landing(self, _action: A.Action) -> Landing:
        return Landing(words=self.words)

    def hold_writes(self) -> None:
        self.holds_writes = True

    async def drop_held(self) -> None:
        self.dropped += 1

    async def release_held(self) -> str:
        self.released += 1
        return "sent"


class Person:
    """The person in charge, answering GO or NOT GO as the test says, and remembering what was asked."""

    def __init__(self, *answers: bool) -> None:
        self.answers, self.asked = list(answers), []  # type: ignore[var-annotated]

    async def go(self, risk: Risk, _step: int | None) -> bool:
        self.asked.append(risk)
        return self.answers.pop(0)


SEEN = Observation(url="http://shop.test/checkout", title="Checkout", items=[
    Element(index=1, role="button", name="Pay now", box=(100, 100, 80, 30)),
    Element(index=2, role="button", name="Next page", box=(300, 100, 80, 30))])


def _guards(page: Page, person: Person, **domains: Any) -> tuple[ActionGuards, list[Event]]:
    bus, seen = Bus(), []  # type: ignore[var-annotated]
    bus.subscribe(seen.append)
    policy = SafetyPolicy(min_interval_s=0, clicks_per_minute=10_000)
    return ActionGuards(policy, page, Emitter(bus, "s1"), person, Domains(**domains)), seen  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "chrome://version", "javascript:alert(1)"])
async def test_a_page_that_is_no_web_page_is_refused_with_a_policy_event(url: str) -> None:
    guards, seen = _guards(Page(), Person())
    said = await guards.admit(A.Navigate(url=url), SEEN, "p1", 1)
    assert said is not None and "not a web page" in said
    assert [e.data["policy"] for e in seen if e.type is EventType.POLICY] == ["scheme"]


async def test_the_same_click_on_a_page_that_does_not_change_is_refused_the_third_time() -> None:
    guards, seen = _guards(Page(), Person())
    click = A.Click(index=2)
    for _ in range(2):
        assert await guards.admit(click, SEEN, "same page", 1) is None
        guards.ran(click, SEEN, "same page", "same page")
    said = await guards.admit(click, SEEN, "same page", 1)
    assert said is not None and "same click" in said
    assert [e.data["policy"] for e in seen if e.type is EventType.POLICY] == ["repeat_click"]
    assert await guards.admit(click, SEEN, "the page changed", 1) is None  # a changed page may be clicked again


async def test_a_risky_action_is_asked_and_not_go_stops_it() -> None:
    person = Person(False)
    guards, _ = _guards(Page("Pay now"), person)
    with pytest.raises(NotGo, match="NOT GO"):
        await guards.admit(A.Click(index=1), SEEN, "p1", 1)
    assert [risk.kind.value for risk in person.asked] == ["payment"]
    assert guards.approved is False


async def test_a_go_lets_exactly_that_action_and_what_it_sends_through() -> None:
    page, person = Page("Pay now"), Person(True)
    guards, _ = _guards(page, person)
    assert await guards.admit(A.Click(index=1), SEEN, "p1", 1) is None and guards.approved
    held = ActionResult(outcome=Outcome.HELD, message="held", held=["POST /api/pay"])
    passed = await guards.held(held, SEEN, 1)
    assert passed.outcome is Outcome.OK and page.released == 1 and len(person.asked) == 1  # not asked twice


async def test_what_a_page_sends_unasked_waits_for_a_go_and_is_dropped_on_not_go() -> None:
    page, person = Page(), Person(False)
    guards, _ = _guards(page, person)
    assert await guards.admit(A.Click(index=2), SEEN, "p1", 1) is None and not guards.approved
    with pytest.raises(NotGo):
        await guards.held(ActionResult(outcome=Outcome.HELD, message="held", held=["delete the account"]), SEEN, 1)
    assert page.dropped == 1 and page.released == 0 and person.asked[0].what == "delete the account"


async def test_leaving_the_allowed_sites_is_asked_and_a_go_widens_them() -> None:
    person = Person(True)
    guards, _ = _guards(Page(), person, patterns=["shop.test"])
    assert await guards.admit(A.Navigate(url="https://bank.test/"), SEEN, "p1", 1) is None
    assert person.asked[0].kind.value == "leave_domain" and guards.domains.allows("https://bank.test/other")

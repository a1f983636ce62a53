"""Which looks carry a screenshot: every one while someone watches, else the ones asked for and a
paced few for the store; a question to the person always shows the screen as it is then."""

from __future__ import annotations

import pytest

from goalbot.agents.observing import Camera
from goalbot.events import Bus, Emitter, Event
from goalbot.operators.browser.operator import BrowserOperator

PAGE = "data:text/html,<title>Shop</title><button onclick=\"this.textContent='Bought'\">Buy</button>"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def recording(bus: Bus) -> list[Event]:
    seen: list[Event] = []
    bus.subscribe(seen.append)
    return seen


@pytest.fixture
async def operator(browser: BrowserOperator) -> BrowserOperator:
    from kit import open_page

    await open_page(browser, PAGE)
    return browser


async def test_nobody_watching_pictures_are_paced_and_asked_ones_always_taken(operator: BrowserOperator) -> None:
    bus, clock = Bus(), Clock()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s1"), every=False, interval_s=2.0, clock=clock)

    await camera.look(1)  # nothing taken yet: this one is due
    await camera.look(1)  # a moment later: the browser is spared the picture
    clock.now += 2.0
    await camera.look(1)
    await camera.look(1, picture=True)  # a step's start, the end, a model that must see
    shots = [e.data["screenshot"] for e in events if e.type.value == "OBSERVATION"]
    assert [bool(s) for s in shots] == [True, False, True, True]
    assert all(s is None or s.startswith("s1-screenshot-") for s in shots)


async def test_someone_watching_gets_every_look_with_its_picture(operator: BrowserOperator) -> None:
    bus = Bus()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s2"), every=True, clock=Clock())
    for _ in range(3):
        await camera.look(1)
    assert all(e.data["screenshot"] for e in events if e.type.value == "OBSERVATION")


async def test_a_picture_for_a_question_shows_now_and_keeps_the_elements_numbers(operator: BrowserOperator) -> None:
    from goalbot import actions as A

    bus = Bus()
    events = recording(bus)
    artifacts: list[bytes] = []
    bus.subscribe_artifacts(lambda a: artifacts.append(a.content))
    camera = Camera(operator, Emitter(bus, "s3"), every=False, clock=Clock())
    await camera.look(1, picture=True)
    assert (await operator.execute(A.Click(index=1))).ok  # the page changes after the look
    shown = await camera.picture_now()
    assert shown == "s3-screenshot-2" and artifacts[-1][:2] == b"\xff\xd8" and artifacts[-1] != artifacts[0]
    # It is no new look (whose elements would be numbered afresh under the model's feet).
    assert [e.type.value for e in events] == ["OBSERVATION"]

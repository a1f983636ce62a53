"""Which looks carry a screenshot: every one while someone watches; the replay's key looks and a
paced few when the store asks for pictures; only the model's when nobody watches. A look at a page
unchanged since the last is that look again. A question to the person always shows the screen as
it is then."""

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


async def changed(operator: BrowserOperator) -> None:
    await operator.page.evaluate("document.body.append('more')")


async def test_for_the_replay_pictures_are_paced_and_key_ones_always_taken(operator: BrowserOperator) -> None:
    bus, clock = Bus(), Clock()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s1"), "paced", interval_s=2.0, clock=clock)

    for look in (camera.look(1),  # nothing taken yet: this one is due
                 camera.look(1)):  # a moment later: the browser is spared the picture
        await look
        await changed(operator)
    clock.now += 2.0
    await camera.look(1)
    await changed(operator)
    await camera.look(1, key=True)  # a step's start, the end
    shots = [e.data["screenshot"] for e in events if e.type.value == "OBSERVATION"]
    assert [bool(s) for s in shots] == [True, False, True, True]
    assert all(s is None or s.startswith("s1-screenshot-") for s in shots)


async def test_nobody_watching_only_the_model_gets_a_picture(operator: BrowserOperator) -> None:
    bus = Bus()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s4"), "none", clock=Clock())
    await changed(operator)  # the fixture's own look had a picture
    await camera.look(1, key=True)
    await changed(operator)
    await camera.look(1)
    await changed(operator)
    seen = await camera.look(1, seen=True)  # --vision, or a model that points at pixels
    shots = [e.data["screenshot"] for e in events if e.type.value == "OBSERVATION"]
    assert [bool(s) for s in shots] == [False, False, True] and seen.screenshot


async def test_a_look_at_an_unchanged_page_is_the_last_look_again(operator: BrowserOperator) -> None:
    bus = Bus()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s5"), "none", clock=Clock())
    await changed(operator)
    first = await camera.look(1)
    assert await camera.look(1) is first  # nothing happened since: no second look, no event
    assert await camera.look(1, seen=True) is not first  # a picture the last look lacks is taken
    from goalbot import actions as A

    assert (await operator.execute(A.Click(index=1))).ok
    after = await camera.look(1)
    assert "Bought" in after.render() and after is not first
    typed = "data:text/html,<input aria-label=Name>"
    await operator.execute(A.Navigate(url=typed))
    field = await camera.look(1)
    assert (await operator.execute(A.Type(index=1, text="Ada"))).ok
    assert "Ada" in (await camera.look(1)).render() and field.url == typed  # a value typed is a change
    assert sum(e.type.value == "OBSERVATION" for e in events) == 5


async def test_someone_watching_gets_every_look_with_its_picture(operator: BrowserOperator) -> None:
    bus = Bus()
    events = recording(bus)
    camera = Camera(operator, Emitter(bus, "s2"), "every", clock=Clock())
    for _ in range(3):
        await camera.look(1)
        await changed(operator)
    assert all(e.data["screenshot"] for e in events if e.type.value == "OBSERVATION")


async def test_a_picture_for_a_question_shows_now_and_keeps_the_elements_numbers(operator: BrowserOperator) -> None:
    from goalbot import actions as A

    bus = Bus()
    events = recording(bus)
    artifacts: list[bytes] = []
    bus.subscribe_artifacts(lambda a: artifacts.append(a.content))
    camera = Camera(operator, Emitter(bus, "s3"), "paced", clock=Clock())
    await camera.look(1, key=True)
    assert (await operator.execute(A.Click(index=1))).ok  # the page changes after the look
    shown = await camera.picture_now()
    assert shown == "s3-screenshot-2" and artifacts[-1][:2] == b"\xff\xd8" and artifacts[-1] != artifacts[0]
    # It is no new look (whose elements would be numbered afresh under the model's feet).
    assert [e.type.value for e in events] == ["OBSERVATION"]

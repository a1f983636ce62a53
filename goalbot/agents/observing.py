"""Looking at the page for a session: each new look is an OBSERVATION on the bus, and the camera
decides which looks carry a screenshot, so the browser draws pictures only where something will
look at them."""

from __future__ import annotations

import time
from typing import Callable, Literal

from goalbot import defaults as D
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.vision import Picture, picture_for_model
from goalbot.operators.base import Observation, Operator, Text
from goalbot.operators.som import boxes_of

ANNOUNCED_MAX, ANNOUNCED_CHARS = 4, 120


Pictures = Literal["every", "paced", "none"]


class Camera:
    """Takes a session's looks and pictures.

    `every` (a live dashboard, `--vision`): each look carries a screenshot. `paced` (the store's
    replay asks for pictures): the looks a replay keys on (`key`: a step's start, the end) and one
    every `interval_s` at most. `none` (nobody watches): only a look the model must see. A
    screenshot costs the browser several times the look itself. A person asked GO / NOT GO always
    gets the screen as it is at that moment.
    """

    def __init__(self, operator: Operator, emitter: Emitter, pictures: Pictures,
                 interval_s: float = D.PICTURE_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.operator = operator
        self.emitter = emitter
        self.pictures = pictures
        self.interval_s = interval_s
        self.clock = clock
        self._last_picture: float | None = None
        self._last_look: Observation | None = None

    async def look(self, step: int | None, key: bool = False, seen: bool = False, told: bool = False) -> Observation:
        """A look at the page: `seen` when the model is shown its screenshot, `key` when a replay
        keys on it. A page unchanged since the last look hands that look back, with no event
        unless the look is one the person is `told` of (a policy said it would look again)."""
        paced = self.pictures == "paced" and (key or self._due())
        observation = await self.operator.observe(screenshot=seen or self.pictures == "every" or paced)
        if observation is self._last_look and not told:
            return observation
        self._last_look = observation
        screenshot = None
        if observation.screenshot:
            screenshot = self.emitter.artifact("screenshot", "image/jpeg", observation.screenshot)
            self._last_picture = self.clock()
        self.emitter.emit(
            EventType.OBSERVATION, Actor.SYSTEM, step,
            url=observation.url, title=observation.title, screenshot=screenshot,
            elements=len(observation.elements),
            # The boxes let a viewer draw the Set-of-Mark picture later, without a second image.
            marks=boxes_of(observation), viewport_width=observation.viewport_width,
            announced=announced(observation),
        )
        return observation

    async def picture_now(self) -> str | None:
        """The screen as it is now, stored as an artifact (its id), for a question to the person;
        None when there is nothing to take it from. It does not look again: the elements' numbers
        the model was given stay valid."""
        content = await self.operator.picture()
        if not content:
            return None
        self._last_picture = self.clock()
        return self.emitter.artifact("screenshot", "image/jpeg", content)

    def _due(self) -> bool:
        return self._last_picture is None or self.clock() - self._last_picture >= self.interval_s


def announced(observation: Observation) -> list[str]:
    """The status and alert texts in view: what a page tells a person an action did."""
    texts = [item.text for item in observation.items if isinstance(item, Text) and item.alert]
    return [" ".join(text.split())[:ANNOUNCED_CHARS] for text in texts[:ANNOUNCED_MAX]]


async def picture_of(observation: Observation, wanted: bool) -> Picture | None:
    """The screenshot as the model gets it, when it is to get one (`--vision`, or a pixel dialect)."""
    if not wanted or not observation.screenshot:
        return None
    return await picture_for_model(observation.screenshot)

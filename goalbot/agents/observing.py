"""Take an observation and publish it (with its screenshot as an artifact) on the bus."""

from __future__ import annotations

from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.vision import Picture, picture_for_model
from goalbot.operators.base import Observation, Operator, Text
from goalbot.operators.som import boxes_of

ANNOUNCED_MAX, ANNOUNCED_CHARS = 4, 120


async def observe(operator: Operator, emitter: Emitter, step: int | None) -> Observation:
    observation = await operator.observe(screenshot=True)
    screenshot = None
    if observation.screenshot:
        screenshot = emitter.artifact("screenshot", "image/jpeg", observation.screenshot)
    emitter.emit(
        EventType.OBSERVATION, Actor.SYSTEM, step,
        url=observation.url, title=observation.title, screenshot=screenshot,
        elements=len(observation.elements),
        # The boxes let a viewer draw the Set-of-Mark picture later, without a second image.
        marks=boxes_of(observation), viewport_width=observation.viewport_width,
        announced=announced(observation),
    )
    return observation


def announced(observation: Observation) -> list[str]:
    """The status and alert texts in view: what a page tells a person an action did."""
    texts = [item.text for item in observation.items if isinstance(item, Text) and item.alert]
    return [" ".join(text.split())[:ANNOUNCED_CHARS] for text in texts[:ANNOUNCED_MAX]]


async def picture_of(observation: Observation, wanted: bool) -> Picture | None:
    """The screenshot as the model gets it, when it is to get one (`--vision`, or a pixel dialect)."""
    if not wanted or not observation.screenshot:
        return None
    return await picture_for_model(observation.screenshot)

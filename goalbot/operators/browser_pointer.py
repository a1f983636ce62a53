"""Dragging: the button goes down on one element or point and comes up on another."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.base import ActionFailed

if TYPE_CHECKING:
    from goalbot.operators.browser_hands import BrowserHands


async def centre(op: BrowserHands, index: int) -> tuple[float, float]:
    element = await op.ready_for_pointer(index)
    box = await element.bounding_box()
    if box is None:
        raise ActionFailed(Outcome.NOT_ACTIONABLE, f"element [{index}] is not visible")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def drag(op: BrowserHands, action: A.Drag) -> str:
    if action.index is not None and action.to_index is not None:
        start = await centre(op, action.index)
        end = await centre(op, action.to_index)
        what = f"dragged [{action.index}] onto [{action.to_index}]"
    else:
        start, end = (action.x or 0.0, action.y or 0.0), (action.to_x or 0.0, action.to_y or 0.0)
        what = f"dragged from ({start[0]:.0f}, {start[1]:.0f}) to ({end[0]:.0f}, {end[1]:.0f})"
    mouse = op.page.mouse

    async def move() -> None:
        await mouse.move(*start)
        await mouse.down()
        await mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=6)
        await mouse.move(*end, steps=6)
        await mouse.up()

    return await op.probe.with_effect(move, what, by_pixels=action.index is None)

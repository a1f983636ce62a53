"""The pointer: clicks (left, right, double), hovering, and dragging from one element or point to another."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser.pages import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands


async def centre(op: BrowserHands, index: int) -> tuple[float, float]:
    element = await op.elements.ready_for_pointer(index)
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


async def press(op: BrowserHands, action: A._Targeted, verb: str, button: str = "left", count: int = 1) -> str:
    point = await op.elements.point_of(action.index, op.page.main_frame) if action.index is not None else None
    if point is not None:
        x, y = point.x, point.y

        async def press_point() -> None:
            await op.page.mouse.click(x, y, button=button, click_count=count)  # type: ignore[arg-type]

        what = f"{verb} [{action.index}]"
        if point.tag == "CANVAS" or count > 1:
            # Pixels are compared: the picture before is taken with the pointer already there,
            # so what hovering drew is not the click's effect.
            await op.page.mouse.move(x, y)
            return await op.probe.with_effect(press_point, what, by_pixels=True)
        # One call to the page found and checked it; the page counts its changes as the button
        # goes down, so what the pointer's arrival did (hover) is not the click's effect either.
        return await op.probe.with_effect(press_point, what, pressed_from=point.changes)
    if action.index is not None:  # inside a frame: Playwright finds its place on the page
        element = await op.elements.ready_for_pointer(action.index)
        tag = await element.evaluate("e => e.tagName")
        # Hover styles must not count as the click's effect. force: the click after it waits
        # for the element to be still and hittable; waiting for that twice costs two frames.
        await element.hover(timeout=ACTION_TIMEOUT_MS, force=True)

        async def click() -> None:
            await element.click(button=button, click_count=count, timeout=ACTION_TIMEOUT_MS)  # type: ignore[arg-type]

        return await op.probe.with_effect(
            click, f"{verb} [{action.index}]", by_pixels=tag == "CANVAS" or count > 1
        )
    x, y = action.x or 0.0, action.y or 0.0
    await op.page.mouse.move(x, y)

    async def click_point() -> None:
        await op.page.mouse.click(x, y, button=button, click_count=count)  # type: ignore[arg-type]

    return await op.probe.with_effect(click_point, f"{verb} ({x:.0f}, {y:.0f})", by_pixels=True)


async def hover(op: BrowserHands, action: A.Hover) -> str:
    before = await op.probe.signature()
    if action.index is not None:
        element = await op.elements.ready_for_pointer(action.index)
        await element.hover(timeout=ACTION_TIMEOUT_MS)
        where = f"[{action.index}]"
    else:
        await op.page.mouse.move(action.x, action.y)  # type: ignore[arg-type]
        where = f"({action.x:.0f}, {action.y:.0f})"
    # Hover effects made with CSS alone change no DOM; they show only in the screenshot.
    changed = await op.probe.changed_since(before)
    return f"hovering over {where}" + ("; the page changed" if changed else "; no DOM change")

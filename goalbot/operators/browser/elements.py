"""The elements of the latest observation by index: what `[n]` names until the next look. The
action helpers reach a page's elements only through here."""

from __future__ import annotations

from typing import Any, NamedTuple

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from goalbot.actions import Outcome
from goalbot.operators.base import ActionFailed
from goalbot.operators.browser import checks as js
from goalbot.operators.browser.observe import Target
from goalbot.operators.browser.pages import ACTION_TIMEOUT_MS
from goalbot.operators.browser.scripts import evaluate


class Point(NamedTuple):
    """Where to press an element, its tag, and its frame's change count when it was found."""

    x: float
    y: float
    tag: str
    changes: int


class Elements:
    def __init__(self) -> None:
        self.targets: list[Target] = []  # where each element lives: `[n]` is `targets[n - 1]`
        # What identifies an element, read along with finding it, until the page is acted on or looked at.
        self.evidence: dict[int, dict[str, str]] = {}

    def renew(self, targets: list[Target]) -> None:
        """The elements of a new look."""
        self.targets, self.evidence = targets, {}

    def _exists(self, index: int) -> None:
        if not 1 <= index <= len(self.targets):
            span = f"[1]–[{len(self.targets)}]" if self.targets else "no elements"
            raise ActionFailed(
                Outcome.TARGET_NOT_FOUND,
                f"there is no element [{index}]; the latest observation has {span}",
            )

    @staticmethod
    def _stale(index: int) -> ActionFailed:
        return ActionFailed(Outcome.STALE_INDEX, f"element [{index}] is gone: the page changed since the observation")

    async def element(self, index: int, script: str = js.FIND_JS, doing: str = "use") -> ElementHandle:
        """The element `[index]` of the latest observation, found and checked in one call by
        `script` (FIND_JS; FIELD_JS, which also says why a field cannot be typed into); ActionFailed
        when there is none, it is gone, or the script says why a person could not `doing` it."""
        self._exists(index)
        target = self.targets[index - 1]
        stale = self._stale(index)
        if target.frame.is_detached():
            raise stale
        try:
            handle = await target.frame.evaluate_handle(script, target.local)
            element = handle.as_element()
            why = None if element is not None else await handle.json_value()
        except PlaywrightError as exc:
            raise stale from exc
        if element is not None:
            return element
        if isinstance(why, str) and why != "gone":
            raise ActionFailed(Outcome.NOT_ACTIONABLE, f"cannot {doing} [{index}]: {why}")
        raise stale

    async def run(self, index: int, script: str, arg: Any = None) -> Any:
        """What `script(element, arg)` answers on element `[index]`, asked in one call to its
        frame; ActionFailed when there is no such element or it is gone (or the script failed)."""
        self._exists(index)
        target = self.targets[index - 1]
        if target.frame.is_detached():
            raise self._stale(index)
        try:
            answer = await evaluate(target.frame, js.on_element(script), [target.local, arg])
        except PlaywrightError as exc:
            raise self._stale(index) from exc
        if answer.get("gone"):
            raise self._stale(index)
        return answer.get("value")

    def frame_url(self, index: int) -> str:
        self._exists(index)
        return self.targets[index - 1].frame.url

    async def point_of(self, index: int, main: Frame) -> Point | None:
        """Where a person presses element `[index]`, in the viewport: found, scrolled into view
        and checked in one call. None for an element inside a frame (its point would need the
        frame's place): `ready_for_pointer` serves those."""
        self._exists(index)
        target = self.targets[index - 1]
        if target.frame is not main:
            return None
        try:
            answer = await evaluate(target.frame, js.POINT_JS, [target.local, js.CAPTCHA_SELECTOR])
        except PlaywrightError as exc:
            raise self._stale(index) from exc
        if answer.get("gone"):
            raise self._stale(index)
        _refuse(index, answer.get("problem"))
        return Point(answer["x"], answer["y"], answer["tag"], answer["changes"])

    async def ready_for_pointer(self, index: int) -> ElementHandle:
        """The element, scrolled into view, or why a person could not point at it."""
        element = await self.element(index)
        pointer = (await element.evaluate_handle(js.POINTER_TARGET_JS)).as_element() or element
        await pointer.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        _refuse(index, await element.evaluate(js.PROBLEM_JS, js.CAPTCHA_SELECTOR))
        return pointer


def _refuse(index: int, problem: str | None) -> None:
    """Why a person could not point at [index], as an ActionFailed; nothing when they could."""
    if problem == "captcha":
        raise ActionFailed(
            Outcome.CAPTCHA_OR_2FA,
            f"[{index}] is part of a CAPTCHA; goalbot does not solve them. Ask the person with call_user.",
        )
    if problem:
        raise ActionFailed(Outcome.NOT_ACTIONABLE, f"cannot use [{index}]: {problem}")

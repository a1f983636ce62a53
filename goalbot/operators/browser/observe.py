"""Observing a page and all its frames, same-origin or not, as one list in document order.

Cross-origin frames cannot be read from their parent, so each frame is observed on its own and
its items are put where its iframe sits. Each frame sees only the part of itself that shows in
the top-level viewport (its clip), so "in view" means in view for the person.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from goalbot.operators.base import Element, FrameMark, Hidden, Item, Text
from goalbot.operators.browser.scripts import PAGE_SCRIPTS_JS, evaluate, look_by_name

LOOK_TOP_JS, LOOK_FRAME_JS = look_by_name(top=True), look_by_name(top=False)
SLOT_JS = "el => (window.__goalbot && window.__goalbot.frames.indexOf(el)) ?? -1"
CAPTCHA_HOSTS = ("recaptcha", "hcaptcha", "challenges.cloudflare.com", "arkoselabs", "funcaptcha")
MAX_FRAME_DEPTH = 5
_NOT_PAGE = ("items", "frames", "hidden", "challenge", "watched", "title", "signature", "changes", "found")

Clip = tuple[float, float, float, float]


@dataclass
class Target:
    """Where element [index] lives: its frame and its place in that frame's element list."""

    frame: Frame
    local: int


@dataclass
class PageView:
    items: list[Item] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    hidden: Hidden = field(default_factory=Hidden)
    challenge: str | None = None
    page: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    signature: str = ""
    changes: object = None  # the top frame's change count once settled, when the look settled it
    found: dict[str, list[Any]] = field(default_factory=dict)  # the top frame's answer to each selector asked


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url[:60]


class PageObserver:
    def __init__(self, max_text: int) -> None:
        self.max_text = max_text

    async def observe(self, page: Page, settle: list[int] | None = None, find: list[str] | None = None) -> PageView:
        """The page as a person sees it; `settle`: after it settles (SETTLED_JS's arguments), in
        the same call to the top frame, which also answers the selectors of `find` (`found`). A
        navigation meanwhile raises, as any call then does."""
        view = PageView()
        size = page.viewport_size or await page.evaluate("({width: innerWidth, height: innerHeight})")
        clip = (0.0, 0.0, float(size["width"]), float(size["height"]))
        raw = await self._evaluate(page.main_frame, clip, LOOK_TOP_JS, settle, find or [])
        view.title, view.signature = str(raw.get("title") or ""), str(raw.get("signature") or "")
        view.changes = raw.get("changes")
        view.found = dict(zip(find or [], raw.get("found") or []))
        view.page = {k: v for k, v in raw.items() if k not in _NOT_PAGE}
        view.items = await self._compose(page.main_frame, raw, (0.0, 0.0), clip, view, depth=0)
        return view

    async def _evaluate(self, frame: Frame, clip: Clip, script: str = LOOK_FRAME_JS,
                        settle: list[int] | None = None, find: list[str] | None = None) -> dict[str, Any]:
        options = {"clip": list(clip), "maxText": self.max_text, "settle": settle, "find": find or []}
        raw: dict[str, Any] | None = await evaluate(frame, script, options)
        if raw is None:  # a document open before goalbot attached: its first look brings the scripts
            await frame.evaluate(PAGE_SCRIPTS_JS)
            raw = await evaluate(frame, script, options)
        if raw is None:
            raise PlaywrightError("the frame lost goalbot's look while it was being looked at")
        return raw

    async def _compose(
        self, frame: Frame, raw: dict[str, Any], offset: tuple[float, float], clip: Clip,
        view: PageView, depth: int,
    ) -> list[Item]:
        view.hidden = view.hidden + Hidden(**raw["hidden"])
        view.challenge = view.challenge or raw.get("challenge")
        captcha_frame = any(host in frame.url for host in CAPTCHA_HOSTS)
        if captcha_frame:
            view.challenge = "captcha"
        children = await self._children_by_slot(frame) if raw["frames"] else {}
        out: list[Item] = []
        for item in raw["items"]:
            if item["kind"] == "element":
                view.targets.append(Target(frame, item["local"]))
                x, y, w, h = item.pop("box")
                states = item.pop("states") + (["captcha"] if captcha_frame else [])
                out.append(Element(
                    index=len(view.targets), box=(x + offset[0], y + offset[1], w, h), states=states,
                    **{k: v for k, v in item.items() if k in Element.model_fields},
                ))
            elif item["kind"] == "text":
                out.append(Text(**{k: v for k, v in item.items() if k != "kind"}))
            elif item["slot"] in children and depth < MAX_FRAME_DEPTH:
                out.extend(await self._frame_items(
                    children[item["slot"]], item, raw["frames"][item["slot"]], offset, clip, view, depth
                ))
        return out

    async def _frame_items(
        self, child: Frame, mark: dict[str, Any], rect: list[float], offset: tuple[float, float],
        clip: Clip, view: PageView, depth: int,
    ) -> list[Item]:
        x, y, w, h = rect
        inner_clip = (max(clip[0], x) - x, max(clip[1], y) - y, min(clip[2], x + w) - x, min(clip[3], y + h) - y)
        try:
            raw = await self._evaluate(child, inner_clip)
        except PlaywrightError:
            return []  # the frame navigated or went away while we looked
        items = await self._compose(child, raw, (offset[0] + x, offset[1] + y), inner_clip, view, depth + 1)
        if not items:
            return []
        return [FrameMark(name=mark["name"], url=_origin(child.url)), *items, FrameMark(end=True)]

    @staticmethod
    async def _children_by_slot(frame: Frame) -> dict[int, Frame]:
        slots: dict[int, Frame] = {}
        for child in frame.child_frames:
            try:
                handle = await child.frame_element()
                slot = await handle.evaluate(SLOT_JS)
            except PlaywrightError:
                continue
            if slot >= 0:
                slots[slot] = child
        return slots

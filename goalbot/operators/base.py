"""What every operator offers the agents, and the observation they hand back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field

from goalbot.actions import Action, ActionResult, Outcome, SavedFile
from goalbot.operators.json_places import Fetched


class Hidden(BaseModel):
    """Elements left out because they are scrolled out of view, by direction."""

    above: int = 0
    below: int = 0
    left: int = 0
    right: int = 0

    def __add__(self, other: Hidden) -> Hidden:
        return Hidden(**{k: getattr(self, k) + getattr(other, k) for k in Hidden.model_fields})

    def phrase(self) -> str:
        parts = [f"{n} more {where}" for where, n in (("above", self.above), ("below", self.below),
                 ("to the left", self.left), ("to the right", self.right)) if n]
        return ", ".join(parts)


class Element(BaseModel):
    kind: Literal["element"] = "element"
    index: int
    role: str
    name: str = ""
    value: str | None = None
    placeholder: str | None = None
    input_type: str | None = None
    options: list[str] | None = None
    states: list[str] = Field(default_factory=list)
    new: bool = Field(False, description="Appeared since the previous observation.")
    hidden: Hidden | None = Field(None, description="What a scroll container hides.")
    box: tuple[float, float, float, float] | None = Field(
        None, description="x, y, width, height in viewport CSS pixels."
    )

    def line(self) -> str:
        parts = [f"{'*' if self.new else ''}[{self.index}]", self.role]
        if self.input_type:
            parts.append(f"type={self.input_type}")
        parts.append(json.dumps(self.name, ensure_ascii=False))
        if self.value:
            parts.append(f"value={json.dumps(self.value, ensure_ascii=False)}")
        if self.placeholder:
            parts.append(f"placeholder={json.dumps(self.placeholder, ensure_ascii=False)}")
        if self.options:
            parts.append("options=" + json.dumps(self.options, ensure_ascii=False))
        parts.extend(self.states)
        if self.hidden and self.hidden.phrase():
            parts.append(f"({self.hidden.phrase()} inside)")
        return " ".join(parts)


class Text(BaseModel):
    kind: Literal["text"] = "text"
    text: str
    heading: int = 0
    alert: bool = False

    def line(self) -> str:
        if self.heading:
            return f"{'#' * self.heading} {self.text}"
        if self.alert:
            return f"! {self.text}"
        return self.text


class FrameMark(BaseModel):
    """Where the content of an iframe starts or ends in the document order."""

    kind: Literal["frame"] = "frame"
    name: str = ""
    url: str = ""
    end: bool = False

    def line(self) -> str:
        if self.end:
            return "--- end of frame ---"
        label = f' "{self.name}"' if self.name else ""
        return f"--- frame{label} {self.url} ---"


Item = Annotated[Element | Text | FrameMark, Field(discriminator="kind")]

# Words that mark a field for a secret, as a person reads them next to it.
SECRET_WORDS = re.compile(r"password|passcode|passwort|\bpin\b|비밀번호|암호", re.I)

CHALLENGE_NOTES = {
    "captcha": "This page shows a CAPTCHA. goalbot does not solve CAPTCHAs: ask the person "
               "with call_user.",
    "2fa": "This page asks for a one-time code (two-factor sign-in). Only the person has it: "
           "ask with call_user, then type their answer.",
}


class Observation(BaseModel):
    """What the navigator sees: page facts, then elements and text in document order."""

    url: str
    title: str
    tabs: list[str] = Field(default_factory=list)
    current_tab: int = 1
    scroll_x: int = 0
    scroll_y: int = 0
    scroll_width: int = 0
    scroll_height: int = 0
    viewport_width: int = 0
    viewport_height: int = 0
    device_pixel_ratio: float = 1.0
    offset_x: int = Field(0, description="Where the target starts on the desktop (a monitor's left edge).")
    offset_y: int = 0
    items: list[Item] = Field(default_factory=list)
    hidden: Hidden = Field(default_factory=Hidden)
    challenge: Literal["captcha", "2fa"] | None = None
    notices: list[str] = Field(default_factory=list, description="Dialogs, downloads, new tabs.")
    budget: int = Field(8000, description="Characters the rendered observation may take.")
    screenshot: bytes | None = Field(default=None, exclude=True, repr=False)

    @property
    def elements(self) -> dict[int, Element]:
        return {item.index: item for item in self.items if isinstance(item, Element)}

    def _header(self) -> list[str]:
        lines = [f"URL: {self.url}", f"Title: {self.title}"]
        if len(self.tabs) > 1:
            tabs = ", ".join(f"{i}: {t}" for i, t in enumerate(self.tabs, 1))
            lines.append(f"Tabs: {tabs} (current: {self.current_tab})")
        if self.scroll_height > self.viewport_height > 0 or self.scroll_y:
            below = max(0, self.scroll_height - self.scroll_y - self.viewport_height)
            lines.append(f"Scroll: {self.scroll_y}px from top, {below}px more below")
        lines.extend(f"! {notice}" for notice in self.notices)
        if self.challenge:
            lines.append(f"! CaptchaOr2FA: {CHALLENGE_NOTES[self.challenge]}")
        lines.append("Elements and text (* marks elements new since the last observation):")
        return lines

    def seen_again(self, budget: int | None = None) -> Observation:
        """This look a second time, the page unchanged: nothing in it is new any more."""
        if (budget is None or budget == self.budget) and not any(
                isinstance(item, Element) and item.new for item in self.items):
            return self
        items = [item.model_copy(update={"new": False}) if isinstance(item, Element) and item.new else item
                 for item in self.items]
        return self.model_copy(update={"items": items, "budget": self.budget if budget is None else budget})

    def summary(self) -> str:
        """One line, for pages the model has moved on from."""
        return f"{self.title or '(no title)'!r} at {self.url}, {len(self.elements)} elements in view"

    def render(self) -> str:
        """The text the model reads, cut to the budget: elements in view outrank text."""
        head = self._header()
        footer: list[str] = []
        if not self.elements:
            footer.append("(no interactive elements in view)")
        if self.hidden.phrase():
            footer.append(f"Out of view: {self.hidden.phrase()} (scroll to reach them)")
        lines = [item.line() for item in self.items]
        size = sum(len(line) + 1 for line in head + lines + footer)
        if size <= self.budget:
            return "\n".join(head + lines + footer)
        return "\n".join(head + self._cut(lines, size) + footer)

    def _cut(self, lines: list[str], size: int) -> list[str]:
        keep = [True] * len(lines)
        dropped_text = dropped_elements = 0
        note_room = 160
        # Plain text goes first (from the bottom), then headings, then elements from the bottom.
        for rank in (lambda i: isinstance(i, Text) and not i.heading and not i.alert,
                     lambda i: isinstance(i, Text),
                     lambda i: isinstance(i, Element)):
            for n in range(len(lines) - 1, -1, -1):
                if size + note_room <= self.budget:
                    break
                if keep[n] and rank(self.items[n]):
                    keep[n] = False
                    size -= len(lines[n]) + 1
                    if isinstance(self.items[n], Element):
                        dropped_elements += 1
                    else:
                        dropped_text += 1
        kept = [line for line, k in zip(lines, keep) if k]
        kept.append(
            f"[observation cut to its budget of {self.budget} characters: {dropped_elements} "
            f"elements and {dropped_text} text lines left out; scroll or act on what is listed]"
        )
        return kept


class Landing(BaseModel):
    """What an action would set off, read from the screen or the page right before it runs."""

    words: str = Field("", description="What a person reads on whatever the action activates (a "
                                       "button, a link, the submit buttons of a form); for typing, "
                                       "the words by the field.")
    url: str = Field("", description="The address it would load or submit to, when it has one.")


class Located(BaseModel):
    """Where extracted data sits on a page (see browser/places.js for the shape), and for a list
    of records, each record's position among the elements its `each` selector matches."""

    place: dict[str, Any]
    positions: list[int] = Field(default_factory=list)
    drawn: int = Field(0, description="How many rows of the list (of record lists) the page draws now.")
    leads: bool = Field(False, description="The records are the first rows the page draws, in order.")


class ReadBack(BaseModel):
    """Data read back from recorded places; `misses` names what was there but not as recorded."""

    data: Any = None
    misses: list[str] = Field(default_factory=list)
    scrolled: bool = Field(False, description="A list drawn only in part was read by scrolling its box through.")
    total: int | None = Field(None, description="How many records the page says the list read holds.")


class Shown(BaseModel):
    """What a page shows of a list, whatever was read of it: the count it writes for it ("5,000
    rows", one count however often written) and the data rows its tables and grids draw."""

    said: int | None = None
    rows: int = 0


class OperatorError(Exception):
    """The operator cannot go on (no browser, browser gone); the message is for the person."""


class DocumentUnread(Exception):
    """A document (a PDF downloaded or shown) that was not read, and why, for the person and the model."""


class ActionFailed(Exception):
    """One action did not do what it was asked; the message is for the model."""

    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class Operator(Protocol):
    name: str
    holds_writes: bool  # whether `hold_writes` can keep what a page sends back for a GO

    async def start(self, url: str | None) -> None: ...

    async def observe(self, screenshot: bool = True) -> Observation: ...

    async def picture(self) -> bytes | None:
        """A JPEG of what a person sees now, without observing again (the elements' numbers stay);
        None when it cannot be taken."""
        ...

    async def execute(self, action: Action) -> ActionResult: ...

    async def is_secret_field(self, index: int | None) -> bool:
        """Whether text typed now, into `index` or else the focused element, is a secret."""
        ...

    async def landing(self, action: Action) -> Landing:
        """What `action` would activate, found the way it will really happen: the element under
        the pointer at press and at release, the focused element for keys, the form a key press
        submits, the address a navigation loads. Empty when it activates nothing."""
        ...

    async def evidence(self, index: int) -> dict[str, str]:
        """What identifies element `[index]` beyond its index (test id, id, tag, CSS path, XPath,
        label, placeholder, nearby text, frame), for finding it again on a later visit; {} when
        nothing more than the observation can be told."""
        ...

    async def find(self, selector: str) -> int | None:
        """The index of the one listed element a CSS `selector` matches now; None for none or several."""
        ...

    def expect_to_find(self, selectors: list[str]) -> None:
        """The selectors `find` will be asked for after looks from now on: an operator may answer
        them with each look (its elements as that look saw them), not in calls of their own."""
        ...

    async def gone(self, index: int) -> bool:
        """Whether element `[index]` of the latest observation has left the page a person sees
        (removed or hidden) while the page itself stayed; False when it cannot be told."""
        ...

    async def absent(self, selector: str) -> bool:
        """Whether nothing the CSS `selector` names shows on the page as it is now, once it has
        loaded: a banner whose form posted back to the same address, and came back without it.
        False when it cannot be told."""
        ...

    async def read_text(self, scope: int | None) -> str:
        """The text a person reads on the page, or in element `[scope]`; "" when the operator
        cannot tell more than its observation."""
        ...

    async def places_of(self, data: Any, scope: int | None) -> Located | None:
        """Where on the page `data` (extracted from it) is written; None when it cannot be told."""
        ...

    async def read_places(self, place: dict[str, Any]) -> ReadBack:
        """The data written now where `place` says, read with no model."""
        ...

    async def shown(self, noun: str, fields: list[str], scope: int | None) -> Shown:
        """What the page (or element `[scope]`) shows of a list named `noun` whose records have
        `fields`; nothing where that cannot be told (a desktop)."""
        ...

    async def pictures_text(self, scope: int | None) -> str:
        """The words drawn in the page's pictures (canvases, large images), or element
        `[scope]`'s, by OCR; "" for none, or where the page is all pictures (a desktop)."""
        ...

    async def shown_pdf(self) -> Path | None:
        """The PDF the current tab shows in the browser's own viewer (served inline, or opened in a
        new tab), its bytes saved to a file; None when it shows none. DocumentUnread when it shows
        one that cannot be had (too big, not allowed, no longer there)."""
        ...

    async def fetched(self) -> list[Fetched]:
        """The JSON the pages fetched that may be kept (same site, no credentials), oldest first;
        empty where there is no such thing (a desktop)."""
        ...

    async def items(self, each: str, nth: int) -> list[int]:
        """The indexes of the listed elements in the `nth` record of a list (the record itself
        first, when it is listed): the first is what a person clicks to take that record."""
        ...

    def hold_writes(self) -> None:
        """From the next action on, while the page it starts on is shown, whatever the page sends
        (any request that is not a read, any WebSocket message, any message to a worker) waits
        for `release_held` or `drop_held`."""
        ...

    async def release_held(self) -> str:
        """Lets through what the page tried to submit and the operator held back for a GO;
        returns what happened, in words for the model."""
        ...

    async def drop_held(self) -> None:
        """NOT GO: what was held is never sent, and an action left waiting on it ends."""
        ...

    async def signature(self) -> str:
        """Changes when the page changes under the agent; "" when it cannot be told (mid-navigation,
        say), which callers never take for "unchanged"."""
        ...

    async def kept_trace(self, failed: bool) -> bytes | None:
        """The run's recorded trace (a Playwright trace.zip), if one is kept for a run that ended so."""
        ...

    async def late_downloads(self) -> list[SavedFile]:
        """Files the pages began to download after the action that asked for them had ended (a
        button that fetches its file first), waited for and saved; none on a desktop."""
        ...

    async def secret_typed_next(self) -> None:
        """The next action types a secret: what the operator records from now on (a trace's
        pictures) may show it."""
        ...

    async def close(self) -> None: ...

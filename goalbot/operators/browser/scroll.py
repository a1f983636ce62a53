"""Scrolling as a person pages through: by most of what the scrolled box shows, never more, so the
last lines seen stay on screen and nothing a list holds is jumped over."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.base import ActionFailed

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands

# The share of the scrolled box's visible size one default scroll moves; the rest stays in view.
KEEP_IN_VIEW = 0.25

_SCROLLER = r"""
  const scrollable = (e) => {
    const st = getComputedStyle(e);
    return (/(auto|scroll)/.test(st.overflowY) && e.scrollHeight > e.clientHeight + 1)
      || (/(auto|scroll)/.test(st.overflowX) && e.scrollWidth > e.clientWidth + 1);
  };
  const scroller = (el) => {
    let t = el;
    while (t && t !== document.body && !scrollable(t)) t = t.parentElement || t.getRootNode().host;
    return !t || t === document.body ? (document.scrollingElement || document.documentElement) : t;
  };
  const page = (t) => t === document.scrollingElement || t === document.documentElement;
  const step = (t, across) => Math.max(40, Math.round((1 - KEEP) * (across
    ? (page(t) ? innerWidth : t.clientWidth) : (page(t) ? innerHeight : t.clientHeight))));
""".replace("KEEP", str(KEEP_IN_VIEW))

# Scrolls the box around `el` (the page when null) by `amount`, or by a default step; says how far.
SCROLL_JS = f"""([el, sign, across, amount]) => {{ {_SCROLLER}
  const t = scroller(el);
  const by = amount || step(t, across);
  const before = [t.scrollLeft, t.scrollTop];
  t.scrollBy({{ left: across ? sign * by : 0, top: across ? 0 : sign * by, behavior: "instant" }});
  return [before[0] !== t.scrollLeft || before[1] !== t.scrollTop, by];
}}"""

# The default step of the box under the point (x, y): what the wheel there would scroll.
STEP_AT_JS = f"""([x, y, across]) => {{ {_SCROLLER}
  return step(scroller(document.elementFromPoint(x, y)), across);
}}"""


async def scroll(op: BrowserHands, action: A.Scroll) -> str:
    across = action.direction in (A.Direction.LEFT, A.Direction.RIGHT)
    sign = -1 if action.direction in (A.Direction.UP, A.Direction.LEFT) else 1
    if action.index is not None:
        element = await op.elements.element(action.index)
        moved, by = await element.evaluate(f"(el, d) => ({SCROLL_JS})([el, ...d])", [sign, across, action.amount])
        where = f"[{action.index}]"
    elif action.x is not None and action.y is not None:
        # The wheel scrolls whatever is under the pointer, as it does for a person.
        by = action.amount or await op.page.evaluate(STEP_AT_JS, [action.x, action.y, across])
        before = await op.probe.signature()
        await op.page.mouse.move(action.x, action.y)
        await op.page.mouse.wheel(sign * by if across else 0, 0 if across else sign * by)
        moved = await op.probe.changed_since(before)
        where = f"at ({action.x:.0f}, {action.y:.0f})"
    else:
        moved, by = await op.page.evaluate(SCROLL_JS, [None, sign, across, action.amount])
        where = "the page"
    if not moved:
        raise ActionFailed(Outcome.NO_EFFECT, f"cannot scroll {where} {action.direction.value}: already at the edge")
    return f"scrolled {where} {action.direction.value} by {by}px"

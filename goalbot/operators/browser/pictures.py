"""The words drawn in a page's pictures — a canvas, a large image — read by OCR, for `extract`:
a chart's labels, a table drawn as an image, a surface that is only pixels. Each picture's words
come back in its rows and columns (goalbot.operators.picture_layout), so a table keeps its rows and
a bar's value stays with its label. Only the main frame, only what shows, and only a few
pictures: each costs a screenshot and an OCR run."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING

from PIL import Image
from playwright.async_api import Error as PlaywrightError

from goalbot.operators.ocr import picture_words, words_available
from goalbot.operators.picture_layout import layout_lines

if TYPE_CHECKING:
    from goalbot.operators.browser.hands import BrowserHands

MOST_PICTURES = 4
LANGUAGES = "eng+kor"  # names on Korean market pages ("삼성전자") are as common as tickers
WORDED = re.compile(r"[^\W\d_]{3,}|\d")
# Canvases and images big enough to hold words, on screen, inside the scope (element [scope]).
_PICTURES_JS = """([scope, most]) => {
  const listed = (window.__goalbot && window.__goalbot.elements) || [];
  const root = (scope && listed[scope - 1]) || document.body;
  const boxes = [];
  for (const el of root.querySelectorAll("canvas, img")) {
    const r = el.getBoundingClientRect();
    if (r.width < 120 || r.height < 40 || r.bottom <= 0 || r.top >= innerHeight) continue;
    if (el.tagName === "IMG" && !el.complete) continue;
    boxes.push({x: r.left, y: Math.max(0, r.top), width: Math.min(r.width, innerWidth - r.left),
                height: Math.min(r.bottom, innerHeight) - Math.max(0, r.top)});
    if (boxes.length >= most) break;
  }
  return boxes;
}"""


async def pictures_text(op: BrowserHands, scope: int | None) -> str:
    """Each picture's words, line by line, the pictures apart by a blank line; "" for none."""
    if not words_available():
        return ""
    local = 0
    if scope is not None and 1 <= scope <= len(op.elements.targets):
        target = op.elements.targets[scope - 1]
        local = target.local if target.frame is op.page.main_frame else 0
    try:
        boxes = await op.page.main_frame.evaluate(_PICTURES_JS, [local, MOST_PICTURES])
        shots = [await op.page.screenshot(clip=box, type="png", caret="initial", timeout=10_000) for box in boxes]
    except PlaywrightError:
        return ""
    read = [_worded(layout_lines(await picture_words(Image.open(io.BytesIO(shot)), LANGUAGES))) for shot in shots]
    return "\n\n".join(text for text in read if text)


def _worded(lines: list[str]) -> str:
    """The lines that hold a word or a number: what OCR makes of a line chart's strokes is not."""
    return "\n".join(line for line in lines if WORDED.search(line))

"""Reading the words where an action lands on the screen (tesseract OCR), so the GO / NOT GO gate
judges a click on a "Delete" button, or typing next to "Password", on the desktop as it does in
a browser. Without tesseract it reads nothing, and says so once."""

from __future__ import annotations

import sys

from PIL import Image

from goalbot.operators.desktop_screen import Monitor
from goalbot.operators.ocr import available, picture_text

MISSING = ("goalbot: tesseract is not installed, so risky clicks on the desktop (Buy, Delete, Send…) "
           "cannot be recognised; apt-get install tesseract-ocr tesseract-ocr-kor")


def crop_around(image: Image.Image, monitor: Monitor, x: float, y: float, left: int, right: int,
                half_height: int) -> Image.Image:
    """The part of the monitor's image around pointer point (x, y), in pointer units each way."""
    scale = image.width / monitor.width
    px, py = (x - monitor.left) * scale, (y - monitor.top) * scale
    box = (max(0, int(px - left * scale)), max(0, int(py - half_height * scale)),
           min(image.width, int(px + right * scale)), min(image.height, int(py + half_height * scale)))
    return image.crop(box)


async def read_words(image: Image.Image) -> str:
    """The text tesseract finds in `image`, as one line; "" when it finds none or is not there."""
    return " ".join((await picture_text(image)).split())


def warn_if_missing() -> None:
    if not available():
        print(MISSING, file=sys.stderr)

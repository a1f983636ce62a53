"""Reading the words where an action lands on the screen (tesseract OCR), so the GO / NOT GO gate
judges a click on a "Delete" button, or typing next to "Password", on the desktop as it does in
a browser. Without tesseract it reads nothing, and says so once."""

from __future__ import annotations

import asyncio
import io
import shutil
import sys

from PIL import Image, ImageOps

from goalbot.operators.desktop_screen import Monitor

MISSING = ("goalbot: tesseract is not installed, so risky clicks on the desktop (Buy, Delete, Send…) "
           "cannot be recognised; apt-get install tesseract-ocr tesseract-ocr-kor")
OCR_TIMEOUT_S = 10.0


def available() -> bool:
    return shutil.which("tesseract") is not None


def crop_around(image: Image.Image, monitor: Monitor, x: float, y: float, left: int, right: int,
                half_height: int) -> Image.Image:
    """The part of the monitor's image around pointer point (x, y), in pointer units each way."""
    scale = image.width / monitor.width
    px, py = (x - monitor.left) * scale, (y - monitor.top) * scale
    box = (max(0, int(px - left * scale)), max(0, int(py - half_height * scale)),
           min(image.width, int(px + right * scale)), min(image.height, int(py + half_height * scale)))
    return image.crop(box)


async def read_words(image: Image.Image) -> str:
    """The text tesseract finds in `image`; "" when it finds none or is not there."""
    if not available() or image.width < 2 or image.height < 2:
        return ""
    grey = ImageOps.grayscale(image)
    grey = grey.resize((grey.width * 2, grey.height * 2), Image.Resampling.LANCZOS)
    png = io.BytesIO()
    grey.save(png, format="PNG")
    process = await asyncio.create_subprocess_exec(
        "tesseract", "stdin", "stdout", "-l", "eng+kor", "--psm", "6",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(png.getvalue()), OCR_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        return ""
    return " ".join(out.decode("utf-8", "replace").split())


def warn_if_missing() -> None:
    if not available():
        print(MISSING, file=sys.stderr)

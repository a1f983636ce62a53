"""Text in a picture, by tesseract: the desktop's words under a click, and the words drawn on a
canvas or an image that `extract` reads. Without tesseract it reads nothing."""

from __future__ import annotations

import asyncio
import io
import shutil

from PIL import Image, ImageOps

OCR_TIMEOUT_S = 10.0


def available() -> bool:
    return shutil.which("tesseract") is not None


async def picture_text(image: Image.Image, languages: str = "eng+kor") -> str:
    """The text tesseract finds in `image`, line by line; "" when it finds none or is not there."""
    if not available() or image.width < 2 or image.height < 2:
        return ""
    grey = ImageOps.grayscale(image)
    grey = grey.resize((grey.width * 2, grey.height * 2), Image.Resampling.LANCZOS)
    png = io.BytesIO()
    grey.save(png, format="PNG")
    process = await asyncio.create_subprocess_exec(
        "tesseract", "stdin", "stdout", "-l", languages, "--psm", "6",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(png.getvalue()), OCR_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        return ""
    return out.decode("utf-8", "replace").strip()

"""The screenshot as the model gets it: resized to a size models take, its size kept so that
coordinates in the answer map back onto the page."""

from __future__ import annotations

import asyncio
import base64
import io

from PIL import Image
from pydantic import BaseModel


MAX_SIDE = 1280  # what most vision endpoints downscale to anyway; sending more only costs tokens


class Picture(BaseModel):
    data_url: str
    width: int
    height: int


def _shrink(jpeg: bytes, max_side: int) -> Picture:
    with Image.open(io.BytesIO(jpeg)) as image:
        scale = min(1.0, max_side / max(image.size))
        if scale < 1.0:
            size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
            smaller = image.convert("RGB").resize(size, Image.Resampling.LANCZOS)
            out = io.BytesIO()
            smaller.save(out, "JPEG", quality=75)
            jpeg = out.getvalue()
        width, height = image.size
    return Picture(data_url="data:image/jpeg;base64," + base64.b64encode(jpeg).decode(),
                   width=width, height=height)


async def picture_for_model(jpeg: bytes, max_side: int = MAX_SIDE) -> Picture:
    return await asyncio.to_thread(_shrink, jpeg, max_side)


def user_message(text: str, picture: Picture | None) -> dict[str, object]:
    if picture is None:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": picture.data_url}},
    ]}

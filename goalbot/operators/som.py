"""Set-of-Mark: the screenshot with each element's index drawn in a box, for vision models."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from goalbot.operators.base import Observation

COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000")


def draw_marks(observation: Observation, image_format: str = "PNG") -> bytes:
    """The observation's screenshot with a numbered box around each listed element."""
    if not observation.screenshot:
        raise ValueError("the observation has no screenshot")
    image = Image.open(io.BytesIO(observation.screenshot)).convert("RGB")
    scale = image.width / observation.viewport_width if observation.viewport_width else 1.0
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(11, round(12 * scale)))
    for element in observation.elements.values():
        if element.box is None:
            continue
        colour = COLOURS[element.index % len(COLOURS)]
        x, y, w, h = (v * scale for v in element.box)
        draw.rectangle((x, y, x + w, y + h), outline=colour, width=max(1, round(2 * scale)))
        label = str(element.index)
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        tag_w, tag_h = right - left + 6, bottom - top + 4
        # The tag sits above the box's corner, or inside it when the box touches the top edge.
        tag_y = y - tag_h if y - tag_h >= 0 else y
        draw.rectangle((x, tag_y, x + tag_w, tag_y + tag_h), fill=colour)
        draw.text((x + 3 - left, tag_y + 2 - top), label, fill="white", font=font)
    out = io.BytesIO()
    image.save(out, format=image_format)
    return out.getvalue()

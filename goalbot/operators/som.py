"""Set-of-Mark: the screenshot with each element's index drawn in a box, for vision models."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from goalbot.operators.base import Observation

COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000")


Box = tuple[int, int, int, int, int]  # index, x, y, width, height in CSS pixels


def boxes_of(observation: Observation) -> list[Box]:
    """The listed elements' boxes, compact enough to ride along in an OBSERVATION event."""
    return [(e.index, round(e.box[0]), round(e.box[1]), round(e.box[2]), round(e.box[3]))
            for e in observation.elements.values() if e.box is not None]


def draw_marks(observation: Observation, image_format: str = "PNG") -> bytes:
    """The observation's screenshot with a numbered box around each listed element."""
    if not observation.screenshot:
        raise ValueError("the observation has no screenshot")
    return draw_boxes(observation.screenshot, boxes_of(observation), observation.viewport_width, image_format)


def wireframe(boxes: list[Box], viewport_width: int) -> bytes:
    """A look kept without its picture (nobody watched the run) as a person can still read it: its
    elements' numbered boxes on a blank page of the viewport's width."""
    width = viewport_width or 1280
    bottom = max((y + h for _index, _x, y, _w, h in boxes), default=0)
    blank = Image.new("RGB", (width, int(min(max(bottom + 20, width * 0.5), width * 2))), "white")
    out = io.BytesIO()
    blank.save(out, format="JPEG")
    return draw_boxes(out.getvalue(), boxes, width, "JPEG")


def draw_boxes(screenshot: bytes, boxes: list[Box], viewport_width: int, image_format: str = "PNG") -> bytes:
    image = Image.open(io.BytesIO(screenshot)).convert("RGB")
    scale = image.width / viewport_width if viewport_width else 1.0
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(11, round(12 * scale)))
    for index, *box in boxes:
        colour = COLOURS[index % len(COLOURS)]
        x, y, w, h = (v * scale for v in box)
        draw.rectangle((x, y, x + w, y + h), outline=colour, width=max(1, round(2 * scale)))
        label = str(index)
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        tag_w, tag_h = right - left + 6, bottom - top + 4
        # The tag sits above the box's corner, or inside it when the box touches the top edge.
        tag_y = y - tag_h if y - tag_h >= 0 else y
        draw.rectangle((x, tag_y, x + tag_w, tag_y + tag_h), fill=colour)
        draw.text((x + 3 - left, tag_y + 2 - top), label, fill="white", font=font)
    out = io.BytesIO()
    image.save(out, format=image_format)
    return out.getvalue()

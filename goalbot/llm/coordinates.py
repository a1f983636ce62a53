"""Where a model's coordinates land: from its convention to viewport or screen pixels.

Models answer in one of three conventions, all about the screenshot they were sent:

- normalised: 0–1 of the image's width and height;
- relative 1000: 0–1000 of width and height (UI-TARS 1.0, Qwen2-VL);
- pixels: pixels of the image as sent, which may have been resized (UI-TARS 1.5, OpenAI
  computer use).

The target is the surface actions land on: the browser viewport in CSS pixels, or a monitor in
the units PyAutoGUI uses, placed at its offset in a multi-monitor layout. The screenshot's own
pixels are physical ones (CSS pixels × device pixel ratio) before any resizing, which is why
the image size and the target size are both needed.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, Field

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class Convention(StrEnum):
    NORMALISED = "normalised"
    RELATIVE_1000 = "relative1000"
    PIXELS = "pixels"


class Geometry(BaseModel):
    """The screenshot the model saw and the surface its answer must land on."""

    image_width: int = Field(gt=0, description="Width of the image as sent to the model.")
    image_height: int = Field(gt=0)
    target_width: float = Field(gt=0, description="Viewport CSS pixels, or the monitor's width.")
    target_height: float = Field(gt=0)
    offset_x: float = Field(0, description="Where the target starts (a monitor's left edge).")
    offset_y: float = 0

    @classmethod
    def for_screenshot(
        cls, viewport: tuple[float, float], device_pixel_ratio: float = 1.0,
        sent: tuple[int, int] | None = None, offset: tuple[float, float] = (0, 0),
    ) -> Geometry:
        """A screenshot of `viewport` taken at `device_pixel_ratio`, sent as is or resized to `sent`."""
        width, height = viewport
        image = sent or (round(width * device_pixel_ratio), round(height * device_pixel_ratio))
        return cls(image_width=image[0], image_height=image[1], target_width=width,
                   target_height=height, offset_x=offset[0], offset_y=offset[1])

    def to_target(self, x: float, y: float, convention: Convention) -> tuple[float, float]:
        if convention is Convention.NORMALISED:
            fx, fy = x, y
        elif convention is Convention.RELATIVE_1000:
            fx, fy = x / 1000, y / 1000
        else:
            fx, fy = x / self.image_width, y / self.image_height
        fx, fy = min(max(fx, 0.0), 1.0), min(max(fy, 0.0), 1.0)
        return self.offset_x + fx * self.target_width, self.offset_y + fy * self.target_height


def point_of(text: str) -> tuple[float, float]:
    """A point from any of the ways models write one; a box (four numbers) means its centre.

    `(120,340)`, `(100,200,140,220)`, `<point>120 340</point>`, `<bbox>1 2 3 4</bbox>`,
    `<|box_start|>(100,200),(140,220)<|box_end|>`, `[0.5, 0.3]`.
    """
    numbers = [float(n) for n in _NUMBER.findall(text)]
    if len(numbers) == 2:
        return numbers[0], numbers[1]
    if len(numbers) == 4:
        x1, y1, x2, y2 = numbers
        return (x1 + x2) / 2, (y1 + y2) / 2
    raise ValueError(f"{text!r} is neither a point (x, y) nor a box (x1, y1, x2, y2)")


def looks_normalised(*values: float) -> bool:
    """All within 0–1 with a fraction somewhere: a normalised answer whatever was asked for."""
    return all(0 <= v <= 1 for v in values) and any(v != int(v) for v in values)

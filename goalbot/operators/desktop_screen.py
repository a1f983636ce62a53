"""Seeing the screen: one monitor captured with mss, its place in the virtual desktop and its
scale, a fingerprint to tell whether anything changed, and an optional labelled grid."""

from __future__ import annotations

import hashlib
import io
import os
import tempfile

from PIL import Image, ImageDraw
from pydantic import BaseModel

from goalbot.operators.base import OperatorError
from goalbot.operators.display import display_problem

NO_DISPLAY = ("no display to automate: set DISPLAY to a running X server, or start one with "
              "`Xvfb :99 -screen 0 1280x800x24 & export DISPLAY=:99`")


class Monitor(BaseModel):
    """Where the monitor sits on the virtual desktop, in the pointer's coordinates."""

    number: int
    left: int
    top: int
    width: int
    height: int


def check_display() -> None:
    if os.environ.get("WAYLAND_DISPLAY"):
        return
    problem = display_problem()
    if problem is not None:
        raise OperatorError(f"{problem}: {NO_DISPLAY}")


def allow_unauthenticated_x() -> None:
    """python-xlib (under PyAutoGUI) refuses to connect without an Xauthority file, even to an
    Xvfb that asks for none; an empty one says "no cookies" and lets it through."""
    path = os.environ.get("XAUTHORITY") or os.path.expanduser("~/.Xauthority")
    if not os.path.exists(path):
        empty = tempfile.NamedTemporaryFile(prefix="goalbot-xauth-", delete=False)
        empty.close()
        os.environ["XAUTHORITY"] = empty.name


class Screen:
    def __init__(self, number: int = 1) -> None:
        import mss  # after the display check: mss opens the display when it starts

        try:
            self._mss = mss.MSS() if hasattr(mss, "MSS") else mss.mss()
        except Exception as exc:  # mss raises its own ScreenShotError, or Xlib's
            raise OperatorError(f"cannot open the display {os.environ.get('DISPLAY', '')}: {exc}") from exc
        monitors = self._mss.monitors[1:]  # [0] is all of them together
        if not 1 <= number <= len(monitors):
            raise OperatorError(f"there is no monitor {number}; this display has {len(monitors)}")
        m = monitors[number - 1]
        self.monitor = Monitor(number=number, left=m["left"], top=m["top"], width=m["width"], height=m["height"])

    def grab(self) -> Image.Image:
        m = self.monitor
        shot = self._mss.grab({"left": m.left, "top": m.top, "width": m.width, "height": m.height})
        return Image.frombytes("RGB", shot.size, shot.bgra, "raw", "BGRX")

    def scale(self, image: Image.Image) -> float:
        """Image pixels per pointer unit: 2 on a HiDPI screen whose pointer counts points."""
        return image.width / self.monitor.width

    def close(self) -> None:
        self._mss.close()


def fingerprint(image: Image.Image, coarse: bool = False) -> str:
    """Equal for screens a person would call the same: a small grey copy, quantised. The coarse
    one ignores a caret or a focus ring and changes when a window, a page or a dialog does."""
    size, step = ((32, 20), 48) if coarse else ((96, 60), 8)
    small = image.convert("L").resize(size, Image.Resampling.BOX)
    return hashlib.sha1(bytes(value // step for value in small.tobytes())).hexdigest()


def with_grid(image: Image.Image, step: int = 100) -> Image.Image:
    """A copy with a labelled grid every `step` pixels, for models that cannot point unaided."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    for x in range(step, out.width, step):
        draw.line([(x, 0), (x, out.height)], fill=(255, 0, 255), width=1)
        draw.text((x + 2, 2), str(x), fill=(255, 0, 255))
    for y in range(step, out.height, step):
        draw.line([(0, y), (out.width, y)], fill=(255, 0, 255), width=1)
        draw.text((2, y + 2), str(y), fill=(255, 0, 255))
    return out


def jpeg(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=75)
    return buffer.getvalue()

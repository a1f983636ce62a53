"""Terminal images through textual-image, imported lazily.

textual-image asks the terminal about sixel support and cell size when it is imported, and fails
when stdin is not a terminal; so it is imported only on the dashboard path, before Textual takes
over the terminal, and everything works without it (the panel then says why there is no image).
"""

from __future__ import annotations

from typing import Any, Literal

ImageMode = Literal["auto", "sixel", "halfcell", "none"]
MODES: tuple[ImageMode, ...] = ("auto", "sixel", "halfcell", "none")

_image_class: Any = None
_unavailable_reason = "images not prepared"
_kind = "no images"


def prepare_images(mode: ImageMode = "auto") -> None:
    """auto: sixel where the terminal answers that it has it, half-cell otherwise."""
    global _image_class, _unavailable_reason, _kind
    _image_class, _kind = None, "no images"
    if mode == "none":
        _unavailable_reason = "images off (--images none)"
        return
    try:
        from textual_image import renderable, widget

        from tui.sixel import SixelPicture
    except Exception as exc:  # any failure here only costs the picture, never the dashboard
        _unavailable_reason = f"terminal images unavailable ({type(exc).__name__})"
        return

    classes = {"auto": widget.Image, "sixel": widget.SixelImage, "halfcell": widget.HalfcellImage}
    chosen = classes[mode]
    _image_class, _unavailable_reason = (SixelPicture if chosen is widget.SixelImage else chosen), ""
    _kind = mode if mode != "auto" else renderable.Image.__module__.rsplit(".", 1)[-1]


def image_widget_class() -> Any:
    return _image_class


def unavailable_reason() -> str:
    return _unavailable_reason


def image_kind() -> str:
    """What the pictures are drawn with, for the panel's title."""
    return _kind

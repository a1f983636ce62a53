"""Terminal images through textual-image, imported lazily.

textual-image asks the terminal about sixel support and cell size when it is imported, and fails
when stdin is not a terminal; so it is imported only on the dashboard path, before Textual takes
over the terminal, and everything works without it (the panel then says why there is no image).
"""

from __future__ import annotations

from typing import Any

_image_class: Any = None
_unavailable_reason = "images not prepared"


def prepare_images() -> None:
    global _image_class, _unavailable_reason
    try:
        from textual_image.widget import Image
    except Exception as exc:  # any failure here only costs the picture, never the dashboard
        _image_class, _unavailable_reason = None, f"terminal images unavailable ({type(exc).__name__})"
    else:
        _image_class, _unavailable_reason = Image, ""


def image_widget_class() -> Any:
    """The textual-image widget class (sixel where the terminal has it, half-cell otherwise)."""
    return _image_class


def unavailable_reason() -> str:
    return _unavailable_reason

"""The latest screenshot, drawn in the terminal (sixel or half-cell), or a note why not."""

from __future__ import annotations

import io

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Static

from tui.images import image_widget_class, unavailable_reason


class ScreenshotPanel(Container):
    def compose(self) -> ComposeResult:
        yield Static("no screenshot yet", id="screenshot-caption")

    def show(self, content: bytes, caption: str) -> None:
        image = PILImage.open(io.BytesIO(content))
        image.load()
        widget_class = image_widget_class()
        self.query_one("#screenshot-caption", Static).update(
            f"{caption}  {image.width}×{image.height}"
            + (f"  ({unavailable_reason()})" if widget_class is None else "")
        )
        if widget_class is None:
            return
        existing = self.query("#screenshot-image")
        if existing:
            existing.first().image = image  # type: ignore[attr-defined]
        else:
            view: Widget = widget_class(image, id="screenshot-image")
            self.mount(view)

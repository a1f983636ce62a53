"""The latest screenshot, drawn in the terminal (sixel or half-cell), or a note why not; with the
Set-of-Mark boxes on request."""

from __future__ import annotations

import io

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Static

from goalbot.operators.som import Box, draw_boxes
from tui.images import image_kind, image_widget_class, unavailable_reason


class ScreenshotPanel(Container):
    def compose(self) -> ComposeResult:
        yield Static("no screenshot yet", id="screenshot-caption", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Screen"
        self.border_subtitle = image_kind()

    def show(self, content: bytes, caption: str, marks: list[Box] | None = None, viewport_width: int = 0) -> None:
        """marks: draw these Set-of-Mark boxes over the picture."""
        if marks:
            content = draw_boxes(content, marks, viewport_width, "JPEG")
        image = PILImage.open(io.BytesIO(content))
        image.load()
        widget_class = image_widget_class()
        note = f"  (marks: {len(marks)})" if marks else ""
        if widget_class is None:
            note += f"  ({unavailable_reason()})"
        self.query_one("#screenshot-caption", Static).update(f"{caption}  {image.width}×{image.height}{note}")
        if widget_class is None:
            return
        existing = self.query("#screenshot-image")
        if existing:
            existing.first().image = image  # type: ignore[attr-defined]
        else:
            view: Widget = widget_class(image, id="screenshot-image")
            self.mount(view)
            # Its height follows from its width, which is known only once the panel is laid out.
            self.call_after_refresh(view.refresh, layout=True)

    def clear(self) -> None:
        """Nothing to show for this moment (before the first look): no picture of another one."""
        self.query("#screenshot-image").remove()
        self.query_one("#screenshot-caption", Static).update("no screenshot yet")

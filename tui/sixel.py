"""Sixel pictures drawn in the colours they were encoded with, on a VT340 too.

In DEC's sixel, `#3;2;63;64;65` defines colour register 3 and `#3` selects it. textual-image
writes a definition and goes straight on to the pixels, as if the definition also selected the
register. A VT340 (and xterm emulating one) does not select on definition: those pixels were drawn
with the default register, 3, and took whatever colour the picture later gave register 3. Most
pictures start with rows of one colour (a page's background), so every picture had a band over its
top in a colour from elsewhere in it (grey, or blue for the demo's buttons). A selection after each
definition draws them as encoded; terminals that select on definition see the same register twice.

Imported only once textual-image is (see tui.images).
"""

from __future__ import annotations

import re
from typing import Any

from textual.app import ComposeResult
from textual_image.widget import sixel

DEFINITION = re.compile(r"#(\d+);2;\d+;\d+;\d+")


def selecting_after_definitions(data: str) -> str:
    return DEFINITION.sub(lambda found: f"{found[0]}#{found[1]}", data)


class _Encoder(sixel._ImageSixelImpl):  # textual-image's own encoder, whose output is mended
    def _image_to_sixels(self, image: Any, sixel_options: Any = None, background: Any = None) -> str:
        return selecting_after_definitions(super()._image_to_sixels(image, sixel_options, background))


class SixelPicture(sixel.Image, Renderable=sixel._NoopRenderable):
    def compose(self) -> ComposeResult:
        yield _Encoder(self.image, self._sixel_options)

"""The footer of every screen: its keys drawn in the screen's first frame."""

from __future__ import annotations

from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's footer waits for the screen's first news of its bindings and draws nothing until
    then: a dialog opened with an empty footer, filled a frame later. The screen's bindings are
    known when the footer is composed, so it draws them at once; the news redraws it as before."""

    NARROW = 100  # below this many columns the keys are drawn close together, without the palette's

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.set_reactive(Footer._bindings_ready, True)
        self._always_compact = compact

    def on_resize(self) -> None:
        # At 80 columns every cell counts: the keys that matter (each screen lists them first)
        # stay on the line; the palette is still Ctrl-P, and F1 lists every key.
        narrow = self.size.width < self.NARROW
        self.compact = self._always_compact or narrow
        self.show_command_palette = not narrow

"""The footer of every screen: its keys drawn in the screen's first frame."""

from __future__ import annotations

from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's footer waits for the screen's first news of its bindings and draws nothing until
    then: a dialog opened with an empty footer, filled a frame later. The screen's bindings are
    known when the footer is composed, so it draws them at once; the news redraws it as before."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.set_reactive(Footer._bindings_ready, True)

"""An Input whose editing keys act in the order they were typed.

Textual inserts a typed character as soon as the field hears it, but runs the field's own key
bindings (Backspace, Ctrl+U, Enter …) only once the key has bubbled up to the app. Keys that come
in one burst (a paste over SSH, a quick hand, a slow machine) then act out of order: Ctrl+U and
the words typed after it leave the field empty, and Enter sends the text from before the burst.
Here the field runs its own bindings the moment it hears the key, like its characters.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TypedInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:
                continue  # the app ran those before the field heard the key
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
        # Not the field's (or skipped, as Ctrl+C with nothing selected): on up to the screen and app.
        await super()._on_key(event)

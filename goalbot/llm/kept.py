"""The authoring roles' requests (planner, patcher), kept in the store for `goalbot tune` and for
a person to read. They are held until the run ends and scrubbed then: a password the navigator
types in the clear becomes a secret only when typed, after the planner saw the page that showed it."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from goalbot.events import Emitter

KIND = "model_request"


class KeptRequests:
    def __init__(self, emitter: Emitter, scrub: Callable[[Any], Any]) -> None:
        self.emitter, self.scrub = emitter, scrub
        self._held: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def keep(self, request: dict[str, Any]) -> None:
        with self._lock:
            self._held.append(request)

    def flush(self) -> None:
        """Each held request as an artifact, scrubbed with every secret the run knows by now."""
        with self._lock:
            held, self._held = self._held, []
        for request in held:
            self.emitter.artifact(KIND, "application/json", json.dumps(self.scrub(request), ensure_ascii=False).encode(),
                                  name=f"{request.get('role')} request")

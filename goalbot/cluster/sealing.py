"""Every message between a coordinator and its workers is sealed with a key they share: anyone who
can write to the broker is not thereby someone who can start a job, forge an event in the store,
or answer GO to a question."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any

KEY_ENV = "GOALBOT_CLUSTER_KEY"
MIN_KEY_CHARS = 16


class NoClusterKey(Exception):
    """The shared key is missing or too short; the message says what to set."""


class Unsealed(Exception):
    """A message whose seal does not match: not from a coordinator or worker holding the key."""


class Seal:
    def __init__(self, key: str) -> None:
        if len(key) < MIN_KEY_CHARS:
            raise NoClusterKey(f"set {KEY_ENV} to the same secret (at least {MIN_KEY_CHARS} characters) for the "
                               "coordinator and every worker: it seals the jobs, events and answers between them")
        self._key = key.encode("utf-8")

    @classmethod
    def from_env(cls) -> Seal:
        return cls(os.environ.get(KEY_ENV, ""))

    def seal(self, body: dict[str, Any]) -> str:
        text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return json.dumps({"body": text, "mac": self._mac(text)})

    def open(self, sealed: str | bytes) -> dict[str, Any]:
        try:
            outer = json.loads(sealed)
            text, mac = outer["body"], outer["mac"]
            if not isinstance(text, str) or not isinstance(mac, str):
                raise TypeError("not a sealed message")
        except (ValueError, TypeError, KeyError) as exc:
            raise Unsealed("not a sealed message") from exc
        if not hmac.compare_digest(self._mac(text), mac):
            raise Unsealed("its seal does not match this machine's key")
        body = json.loads(text)
        if not isinstance(body, dict):
            raise Unsealed("not a sealed message")
        return body

    def _mac(self, text: str) -> str:
        return hmac.new(self._key, text.encode("utf-8"), hashlib.sha256).hexdigest()

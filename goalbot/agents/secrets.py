"""Secrets the person hands in (`--secret NAME=VALUE`, `--secrets-file`, a password given in
answer to the agent's question). The model only ever sees `<secret:NAME>`; the value is put in
at the moment of typing, and scrubbed from anything that leaves the process."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

REFERENCE = re.compile(r"<secret:([A-Za-z0-9_.-]+)>")
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
# A question asking for one of these is answered as a secret (hidden input, never stored).
_ASKS_FOR_SECRET = re.compile(
    r"password|passcode|passphrase|\bpin\b|one.time|otp|2fa|two.factor|verification code"
    r"|security code|auth(?:entication)? code|\bcvc\b|\bcvv\b|card number",
    re.IGNORECASE,
)


class SecretError(ValueError):
    pass


def asks_for_secret(question: str) -> bool:
    return bool(_ASKS_FOR_SECRET.search(question))


def parse_secret(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.fullmatch(name) or not value:
        raise SecretError(f"a secret is NAME=VALUE, with NAME made of letters, digits, _ . - (got {name or text!r})")
    return name, value


def read_secrets_file(path: Path) -> dict[str, str]:
    """Lines of NAME=VALUE; blank lines and lines starting with # are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SecretError(f"cannot read the secrets file {path}: {exc.strerror}") from exc
    found: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            name, value = parse_secret(line)
        except SecretError as exc:
            raise SecretError(f"{path}, line {number}: {exc}") from None
        found[name] = value
    return found


class Secrets:
    """Thread-safe: the recorder and the printer scrub from their own threads."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self._values = dict(values or {})
        self._lock = threading.Lock()

    def add(self, name: str, value: str) -> str:
        with self._lock:
            self._values[name] = value
        return f"<secret:{name}>"

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._values)

    def reveal(self, text: str) -> str:
        """The text to type, with every `<secret:NAME>` replaced by its value."""
        def value(match: re.Match[str]) -> str:
            with self._lock:
                if match.group(1) not in self._values:
                    known = ", ".join(f"<secret:{n}>" for n in sorted(self._values)) or "none"
                    raise SecretError(f"there is no secret {match.group(0)}; the secrets are: {known}")
                return self._values[match.group(1)]

        return REFERENCE.sub(value, text)

    def scrub(self, value: Any) -> Any:
        """The same value with every secret replaced by its reference, in strings at any depth."""
        with self._lock:
            pairs = sorted(self._values.items(), key=lambda item: -len(item[1]))
        if not pairs:
            return value
        return _scrub(value, pairs)


def _scrub(value: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for name, secret in pairs:
            if secret in value:
                value = value.replace(secret, f"<secret:{name}>")
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, pairs) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, pairs) for v in value]
    return value

"""Secrets the person hands in (`--secret NAME=VALUE`, `--secrets-file`, a password given in
answer to the agent's question). The model only ever sees `<secret:NAME>`; the value is put in
at the moment of typing, and scrubbed from anything that leaves the process."""

from __future__ import annotations

import base64
import html
import json
import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

REFERENCE = re.compile(r"<secret:([A-Za-z0-9_.-]+)>")
HIDDEN = "•••"  # what events show for text typed into a password field
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
    except UnicodeDecodeError as exc:
        raise SecretError(f"the secrets file {path} is not UTF-8 text (byte {exc.start})") from exc
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


_NAMED_ENTITIES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", "\xa0": "nbsp"}
_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
               "\r": "\\r", "\t": "\\t"}


def _hex(number: int, width: int) -> str:
    """`2f` as a pattern for either case: 2[fF]."""
    return "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in format(number, f"0{width}x"))


def _char_forms(char: str) -> str:
    """A pattern for one character in any form a page or a protocol writes it: itself, percent-
    encoded (+ for a space), an HTML entity (named, decimal, hex) or a JSON escape."""
    forms = [re.escape(char), "".join(f"%{_hex(byte, 2)}" for byte in char.encode("utf-8")),
             f"&#0*{ord(char)};", f"&#[xX]0*{_hex(ord(char), 1)};"]
    if char == " ":
        forms.append(r"\+")
    if char in _NAMED_ENTITIES:
        forms.append(f"&{_NAMED_ENTITIES[char]};")
    if char in _JSON_SHORT:
        forms.append(re.escape(_JSON_SHORT[char]))
    units = char.encode("utf-16-be")
    forms.append("".join(r"\\u" + _hex(int.from_bytes(units[i:i + 2], "big"), 4) for i in range(0, len(units), 2)))
    return "(?:" + "|".join(forms) + ")"


def secret_pattern(value: str) -> re.Pattern[str]:
    """Matches `value` however a page passed it on: in an address or a form body, in HTML, in
    JSON — each character in any of its forms, mixed as encoders mix them — or as base64."""
    raw = value.encode("utf-8")
    whole = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    whole |= {encoded.rstrip("=") for encoded in whole}
    per_char = "".join(_char_forms(char) for char in value)
    return re.compile("|".join([per_char, *(re.escape(w) for w in sorted(whole, key=len, reverse=True))]))


def encodings(value: str) -> set[str]:
    """A few of the forms `secret_pattern` matches, as encoders write them (for tests and checks)."""
    raw = value.encode("utf-8")
    return {value, quote(value, safe=""), quote_plus(value), quote(value, safe="").lower(),
            html.escape(value), json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1],
            base64.b64encode(raw).decode()}


MIN_LEARNED = 4


class Secrets:
    """Thread-safe: the recorder and the printer scrub from their own threads."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self._values = dict(values or {})
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._lock = threading.Lock()

    def add(self, name: str, value: str) -> str:
        with self._lock:
            self._values[name] = value
        return f"<secret:{name}>"

    def learn(self, value: str) -> str | None:
        """A value typed into a password field in the clear becomes a secret of the session, so a
        page that shows it again (an echo, an error) cannot carry it into the store or the log.
        Its name, or None for one too short to scrub without mangling ordinary words."""
        if len(value) < MIN_LEARNED:
            return None
        with self._lock:
            known = next((name for name, known in self._values.items() if known == value), None)
            if known is not None:
                return known
            name = next(n for n in (f"password{i or ''}" for i in range(len(self._values) + 1))
                        if n not in self._values)
            self._values[name] = value
        return name

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
        """The same value with every secret replaced by its reference, in strings at any depth,
        in whatever encoding a page gave it (`secret_pattern`)."""
        with self._lock:
            values = dict(self._values)
        if not values:
            return value
        pairs = [(name, self._pattern(secret)) for name, secret in sorted(values.items(), key=lambda i: -len(i[1]))]
        return _scrub(value, pairs)

    def _pattern(self, secret: str) -> re.Pattern[str]:
        with self._lock:
            if secret not in self._patterns:
                self._patterns[secret] = secret_pattern(secret)
            return self._patterns[secret]


def _scrub(value: Any, pairs: list[tuple[str, re.Pattern[str]]]) -> Any:
    if isinstance(value, str):
        for name, pattern in pairs:
            value = pattern.sub(f"<secret:{name}>", value)
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, pairs) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, pairs) for v in value]
    return value

"""Finding JSON in a model's text and mending damage that has only one possible meaning.

Mended: prose around the JSON, code fences, trailing commas, single-quoted strings, bare keys,
Python's True/False/None, and closing brackets missing at the very end. Anything else (a string cut in
half, a missing comma, two values glued together) is ambiguous and left for the model to fix.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\s*:)?")
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}
_CLOSERS = {"{": "}", "[": "]"}


class NoJson(ValueError):
    """No JSON value could be found or mended; the message says what was wrong, for the model."""


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def whole_text(value: Any) -> Any:
    """`value` with every lone surrogate in its strings replaced by U+FFFD: JSON may write
    "\\ud800" alone, and such a string can be neither stored as UTF-8 nor printed. (A pair
    that makes one character was joined by the JSON reader before this looks.)"""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [whole_text(item) for item in value]
    if isinstance(value, dict):
        return {whole_text(key): whole_text(item) for key, item in value.items()}
    return value


def find_json(text: str) -> Any:
    """The first JSON object or list in `text`, mended when the damage is unambiguous."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise NoJson("there is no JSON object or list in the answer")
    candidate = _balanced_span(body, start)
    try:
        return whole_text(json.loads(candidate))
    except (RecursionError, ValueError) as exc:
        if not isinstance(exc, json.JSONDecodeError):  # nested too deep, a number too long
            raise NoJson(f"the JSON cannot be read ({type(exc).__name__})") from exc
        first = exc
    mended = _mend(candidate)
    try:
        return whole_text(json.loads(mended))
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise NoJson(f"the JSON is broken ({first.msg} at character {first.pos})") from first


def _balanced_span(text: str, start: int) -> str:
    """From `start` to the bracket that closes it, or to the end when it never closes."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return text[start:].rstrip()


def _mend(text: str) -> str:
    text = _requote(text)
    text = _TRAILING_COMMA.sub(r"\1", text)
    return _close(text)


def _requote(text: str) -> str:
    """Single-quoted strings become double-quoted; Python's constants become JSON's."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            end = _string_end(text, i)
            if end < 0:  # an unterminated string: left for json.loads to refuse
                out.append(text[i:])
                break
            inner = text[i + 1:end]
            if ch == "'":
                inner = inner.replace("\\'", "'").replace('"', '\\"')
            out.append('"' + inner + '"')
            i = end + 1
            continue
        word = _WORD.match(text, i)
        if word:
            name = word.group(1)
            if word.group(2):  # a bare key, as in JavaScript: {action: "click"}
                out.append(f'"{name}"{word.group(2)}')
            else:
                out.append(_PYTHON_WORDS.get(name, name))
            i = word.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def _close(text: str) -> str:
    """Append the closing brackets of an answer cut off right after a complete value."""
    stack: list[str] = []
    quote, escaped = False, False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "{[":
            stack.append(_CLOSERS[ch])
        elif ch in "}]" and stack:
            stack.pop()
    if quote or not stack:
        return text
    stripped = text.rstrip()
    if stripped.endswith((",", ":")):
        return text  # cut in the middle of a member: not ours to guess
    return stripped + "".join(reversed(stack))

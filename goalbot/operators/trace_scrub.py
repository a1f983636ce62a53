"""A Playwright trace kept with a session is a stored artifact like any other: every secret of the
run is scrubbed from it before it reaches the store, and the pictures of the page drawn once a
secret was typed are left out of it.

A trace.zip holds JSON lines (`trace.trace`, `trace.network`), the bodies it saw (`resources/`) and,
with screenshots, JPEG frames (`screencast/`). The DOM snapshots hold what a field holds
(`__playwright_value_`), the page's text, the addresses of GET forms; the network log holds form
bodies; the results of the scripts goalbot runs hold JSON inside JSON strings. Each string is
scrubbed at its own level, so a secret escaped twice or three times is found as surely as once.
Pixels cannot be scrubbed: a frame drawn after the marker `SECRET_TYPED` may show the field, or the
page repeating it, so it is dropped."""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any, Callable

# The name of the trace group the browser opens right before a secret is typed (trace clock, ms).
SECRET_TYPED = "goalbot: a secret is typed from here on"
_PICTURE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"RIFF", b"GIF8")
# A string that is itself JSON (a script's result) is scrubbed inside; deeper than this, as text.
_MOST_NESTED = 6
# JSON whose first separator has a space after it (`{"a": 1`, `[1, 2`) was written spaced.
_SPACED = re.compile(r'\s*(?:\{\s*"(?:[^"\\]|\\.)*"\s*: |\[[^,\[\]{}]*, )')

Scrub = Callable[[Any], Any]


def scrubbed_trace(content: bytes, scrub: Scrub) -> bytes:
    """The trace.zip `content` with every secret `scrub` knows replaced by its reference, and
    without the frames drawn since a secret was first typed. What is not a zip is returned as
    nothing rather than kept unread."""
    try:
        source = zipfile.ZipFile(io.BytesIO(content))
        members = [(info, source.read(info)) for info in source.infolist()]
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return b""
    typed_at = _secret_typed_at(members)
    dropped = _frames_since(members, typed_at)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as kept:
        for info, data in members:
            if info.filename in dropped or info.is_dir():
                continue
            kept.writestr(_scrubbed_name(info.filename, scrub), _scrubbed_member(info.filename, data, scrub, dropped))
    return out.getvalue()


def _scrubbed_name(name: str, scrub: Scrub) -> str:
    return str(scrub(name))


def _scrubbed_member(name: str, data: bytes, scrub: Scrub, dropped: set[str]) -> bytes:
    if data.startswith(_PICTURE_MAGIC):
        return data  # a frame from before any secret was typed, or an image the page loaded
    text = data.decode("utf-8", errors="surrogateescape")
    if name.endswith((".trace", ".network")):
        lines = [_scrubbed_line(line, scrub) for line in text.splitlines() if not _names_dropped(line, dropped)]
        text = "\n".join(lines) + ("\n" if lines else "")
    else:
        text = _scrubbed_text(text, scrub)
    return text.encode("utf-8", errors="surrogateescape")


def _scrubbed_line(line: str, scrub: Scrub) -> str:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return str(scrub(line))
    scrubbed = _scrubbed_value(record, scrub, 0)
    return line if scrubbed == record else _dumped(scrubbed, line)


def _scrubbed_value(value: Any, scrub: Scrub, depth: int) -> Any:
    """`value` scrubbed in one walk, then each string in it that is JSON scrubbed inside (its
    escapes undone first): a form the outer walk did not reach is caught one level down."""
    value = scrub(value)
    return value if depth >= _MOST_NESTED else _inner_json(value, scrub, depth)


def _inner_json(value: Any, scrub: Scrub, depth: int) -> Any:
    if isinstance(value, str):
        return _scrubbed_json_text(value, scrub, depth)
    if isinstance(value, dict):
        return {key: _inner_json(item, scrub, depth) for key, item in value.items()}
    if isinstance(value, list):
        return [_inner_json(item, scrub, depth) for item in value]
    return value


def _scrubbed_json_text(text: str, scrub: Scrub, depth: int) -> str:
    stripped = text.strip()
    if stripped[:1] not in ("{", "[") or len(stripped) < 2:
        return text
    try:
        inner = json.loads(stripped)
    except (ValueError, RecursionError):
        return text
    scrubbed = _scrubbed_value(inner, scrub, depth + 1)
    return text if scrubbed == inner else _dumped(scrubbed, stripped)


def _scrubbed_text(text: str, scrub: Scrub) -> str:
    """A file that is not JSON lines (a body the trace kept): as text, and as JSON when it is."""
    return _scrubbed_json_text(str(scrub(text)), scrub, 0)


def _dumped(value: Any, original: str) -> str:
    """JSON written back in the spacing it came in: Playwright's compact, or the encoder's default."""
    spaced = _SPACED.match(original) is not None
    return json.dumps(value, ensure_ascii=False, separators=None if spaced else (",", ":"))


def _secret_typed_at(members: list[tuple[zipfile.ZipInfo, bytes]]) -> float | None:
    """When (trace clock, ms) the first secret was typed; None when none was."""
    marked = SECRET_TYPED.encode()
    for info, data in members:
        if not info.filename.endswith(".trace") or marked not in data:
            continue
        for line in data.decode("utf-8", errors="replace").splitlines():
            if SECRET_TYPED in line:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("startTime"), (int, float)):
                    return float(record["startTime"])
    return None


def _frames_since(members: list[tuple[zipfile.ZipInfo, bytes]], since: float | None) -> set[str]:
    """The files of the screencast frames drawn at or after `since`."""
    if since is None:
        return set()
    frames: set[str] = set()
    for info, data in members:
        if not info.filename.endswith(".trace"):
            continue
        for line in data.decode("utf-8", errors="replace").splitlines():
            if '"screencast-frame"' not in line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            stamp = record.get("timestamp") if isinstance(record, dict) else None
            if not isinstance(stamp, (int, float)) or stamp >= since:
                frames.add(str(record.get("file", "")) if isinstance(record, dict) else "")
    frames.discard("")
    return frames


def _names_dropped(line: str, dropped: set[str]) -> bool:
    """A screencast-frame line whose picture was left out: the viewer would ask for a missing file."""
    if not dropped or '"screencast-frame"' not in line:
        return False
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("file") in dropped

"""The trace scrubber on a trace.zip laid out as Playwright writes one, with the secret in each
place and form a hostile page or goalbot's own scripts can put it."""

from __future__ import annotations

import base64
import html
import io
import json
import zipfile
from urllib.parse import quote

from goalbot.agents.secrets import Secrets, secret_pattern
from goalbot.operators.trace_scrub import SECRET_TYPED, scrubbed_trace

SECRET = 'tr0ub4dor "&" /3\\'
JPEG = b"\xff\xd8\xff\xe0 a picture"


def _trace(lines: list[dict], files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as made:
        made.writestr("trace.trace", "\n".join(json.dumps(line, separators=(",", ":")) for line in lines) + "\n")
        for name, data in files.items():
            made.writestr(name, data)
    return out.getvalue()


def _frame(name: str, at: float) -> dict:
    return {"type": "screencast-frame", "file": f"screencast/{name}.jpeg", "timestamp": at}


def test_every_form_and_depth_of_a_secret_is_scrubbed_and_later_pictures_dropped() -> None:
    nested = json.dumps({"items": [{"text": json.dumps({"code": SECRET})}]})  # JSON in JSON in JSON
    lines = [
        _frame("before", 10.0),
        {"type": "before", "callId": "c1", "startTime": 11.0, "title": SECRET_TYPED},
        {"type": "frame-snapshot", "snapshot": {"html": ["INPUT", {"__playwright_value_": SECRET}]}},
        {"type": "after", "callId": "c2", "result": {"value": {"s": nested}}},
        {"type": "resource-snapshot", "snapshot": {"request": {"url": "http://x/?code=" + quote(SECRET, safe="")}}},
        {"type": "console", "text": base64.b64encode(SECRET.encode()).decode()},
        _frame("after", 12.0),
    ]
    content = _trace(lines, {"screencast/before.jpeg": JPEG, "screencast/after.jpeg": JPEG,
                             "resources/a.html": f"<p title='{html.escape(SECRET)}'>".encode()})
    kept = zipfile.ZipFile(io.BytesIO(scrubbed_trace(content, Secrets({"PW": SECRET}).scrub)))
    assert sorted(kept.namelist()) == ["resources/a.html", "screencast/before.jpeg", "trace.trace"]
    recorded = kept.read("trace.trace").decode()
    assert "screencast/after.jpeg" not in recorded and "screencast/before.jpeg" in recorded
    pattern = secret_pattern(SECRET)
    for name in kept.namelist():
        text = kept.read(name).decode("utf-8", errors="replace")
        assert "tr0ub4dor" not in text and not pattern.search(text), (name, text)
    assert recorded.count("<secret:PW>") == 4 and "<secret:PW>" in kept.read("resources/a.html").decode()
    for line in recorded.splitlines():
        json.loads(line)  # still a trace the viewer reads


def test_a_trace_with_no_secret_typed_keeps_its_pictures_and_its_bytes_of_json() -> None:
    lines = [_frame("one", 1.0), {"type": "before", "callId": "c1", "startTime": 2.0, "params": {"text": "hello"}}]
    content = _trace(lines, {"screencast/one.jpeg": JPEG})
    kept = zipfile.ZipFile(io.BytesIO(scrubbed_trace(content, Secrets({"PW": SECRET}).scrub)))
    assert kept.read("screencast/one.jpeg") == JPEG
    assert kept.read("trace.trace") == zipfile.ZipFile(io.BytesIO(content)).read("trace.trace")


def test_what_is_no_zip_is_not_kept() -> None:
    assert scrubbed_trace(b"not a zip " + SECRET.encode(), Secrets({"PW": SECRET}).scrub) == b""

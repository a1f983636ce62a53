"""One cheap request to the model endpoint before anything else starts: a wrong address, a page
that is no API, a missing key or a dead server is said in the first second, not after the browser
has started and the first question has been retried."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

Level = Literal["ok", "warn", "fail"]

# An endpoint on this machine that refuses connections may be one just started in the background:
# it is given this long to listen before the run is refused.
STARTING_GRACE_S = 10.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class Finding(BaseModel):
    level: Level
    text: str


class EndpointReport(BaseModel):
    endpoint: str
    findings: list[Finding] = Field(default_factory=list)

    @property
    def usable(self) -> bool:
        return all(finding.level != "fail" for finding in self.findings)

    def say(self, level: Level, text: str) -> None:
        self.findings.append(Finding(level=level, text=text))

    def first(self, level: Level) -> str | None:
        return next((f.text for f in self.findings if f.level == level), None)


def probe_endpoint(base_url: str, api_key: str, models: list[str], timeout_s: float = 5.0,
                   wait_for_start: bool = False) -> EndpointReport:
    """GET {base_url}/models: the one request every OpenAI-compatible server answers cheaply. A
    server without that list is asked once more, with an empty question no API would answer.
    `wait_for_start`: a server on this machine that refuses connections is given a moment to start
    listening (for what cannot go on without the model: a run, `doctor`)."""
    report = EndpointReport(endpoint=base_url)
    root = base_url.rstrip("/")
    waits = wait_for_start and _on_this_machine(base_url)
    deadline = time.monotonic() + (STARTING_GRACE_S if waits else 0)
    while True:
        try:
            status, kind, body = _ask(urllib.request.Request(f"{root}/models"), api_key, timeout_s)
            break
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ConnectionRefusedError) and time.monotonic() < deadline:
                time.sleep(0.2)  # a server started a moment ago (`goalbot demo --serve-only &`) is let start
                continue
            waited = (f" (nothing listened there for {STARTING_GRACE_S:g} s)"
                      if isinstance(reason, ConnectionRefusedError) and waits else "")
            report.say("fail", f"cannot reach the model endpoint {base_url}: {reason}{waited}")
            return report
    if status in (401, 403):
        why = "no API key is set (--api-key or OPENAI_API_KEY)" if not api_key else "the API key was refused"
        report.say("fail", f"{base_url} refuses goalbot (HTTP {status}): {why}")
    elif kind == "text/html" and _a_web_page(root, api_key, timeout_s):
        report.say("fail", f"{base_url} answers with a web page (HTTP {status}), not an OpenAI-compatible API; "
                           "such addresses usually end in /v1")
    elif status >= 500 and kind != "text/html":
        report.say("warn", f"{base_url} is failing (HTTP {status}); goalbot will retry its questions")
    elif status >= 400 or kind == "text/html":
        report.say("warn", f"{base_url} lists no models (HTTP {status}); the first question will tell whether it works")
    else:
        _read_models(body, models, report)
    return report


def _on_this_machine(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "") in LOOPBACK


def _ask(request: urllib.request.Request, api_key: str, timeout_s: float) -> tuple[int, str, bytes]:
    request.add_header("Accept", "application/json")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 (the person's endpoint)
            return response.status, response.headers.get_content_type(), response.read(1_000_000)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get_content_type(), exc.read(100_000)


def _a_web_page(root: str, api_key: str, timeout_s: float) -> bool:
    """Whether the address is a web site: its chat completions answer with a page too. An API
    refuses an empty question in JSON at once (nothing is generated, nothing is billed)."""
    question = urllib.request.Request(f"{root}/chat/completions", data=b"{}", method="POST",
                                      headers={"Content-Type": "application/json"})
    try:
        _status, kind, _body = _ask(question, api_key, timeout_s)
    except (urllib.error.URLError, OSError, ValueError):
        return False  # no page either: let the first real question tell
    return kind == "text/html"


def _read_models(body: bytes, models: list[str], report: EndpointReport) -> None:
    try:
        listed = {str(entry["id"]) for entry in json.loads(body)["data"]}
    except (ValueError, KeyError, TypeError):
        report.say("warn", "the endpoint answered, but not with a model list; the first question will tell")
        return
    for model in dict.fromkeys(models):
        if model in listed or not listed:
            report.say("ok", f"the endpoint serves {model}")
        else:
            near = ", ".join(sorted(listed)[:5])
            # A local server lists its model by the file it loaded ("…/SmolLM2-135M-Instruct.Q4_1.gguf").
            meant = [name for name in sorted(listed) if model.casefold() in name.casefold()]
            hint = f"; pass --model {meant[0]!r}" if len(meant) == 1 else ""
            report.say("warn", f"the endpoint does not list the model {model!r} (it lists {near}"
                        f"{', …' if len(listed) > 5 else ''}){hint}")

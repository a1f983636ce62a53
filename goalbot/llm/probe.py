"""One cheap request to the model endpoint before anything else starts: a wrong address, a page
that is no API, a missing key or a dead server is said in the first second, not after the browser
has started and the first question has been retried."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

Level = Literal["ok", "warn", "fail"]

# An endpoint on this machine that refuses connections may be one just started in the background:
# it is given this long to listen before the run is refused.
STARTING_GRACE_S = 10.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# The whole of one request to the endpoint, however it trickles: the model list is small.
REQUEST_MOST_S = 10.0
# A server that took the connection but sends nothing is busy (a local one answers one request at
# a time, its model list too): it is waited for this long in all, not called unreachable.
BUSY_MOST_S = 120.0


class Finding(BaseModel):
    level: Level
    text: str


class EndpointReport(BaseModel):
    endpoint: str
    findings: list[Finding] = Field(default_factory=list)
    busy: bool = Field(False, description="It took the connection and answered nothing: no address or key is wrong.")

    @property
    def usable(self) -> bool:
        return all(finding.level != "fail" for finding in self.findings)

    def say(self, level: Level, text: str) -> None:
        self.findings.append(Finding(level=level, text=text))

    def first(self, level: Level) -> str | None:
        return next((f.text for f in self.findings if f.level == level), None)


def probe_endpoint(base_url: str, api_key: str, models: list[str], timeout_s: float = 5.0,
                   wait_for_start: bool = False, say_now: Callable[[str], None] | None = None) -> EndpointReport:
    """GET {base_url}/models: the one request every OpenAI-compatible server answers cheaply. A
    server without that list is asked once more, with an empty question no API would answer.
    `wait_for_start`: a server on this machine that refuses connections is given a moment to start
    listening (for what cannot go on without the model: a run, `doctor`). `say_now` hears at once
    that a busy endpoint is being waited for."""
    report = EndpointReport(endpoint=base_url)
    root = base_url.rstrip("/")
    waits = wait_for_start and _on_this_machine(base_url)
    deadline = time.monotonic() + (STARTING_GRACE_S if waits else 0)
    asked = time.monotonic()
    read_s = timeout_s
    while True:
        try:
            status, kind, body = _ask(urllib.request.Request(f"{root}/models"), api_key, read_s)
            break
        except TooSlow as exc:
            report.say("fail", f"the model endpoint {base_url} did not send its model list whole within "
                               f"{exc.seconds:g} s (it trickled); a run's questions would hang on it too")
            return report
        except TimeoutError:  # connected, and not a byte back: busy, not unreachable
            if read_s >= BUSY_MOST_S - timeout_s:
                report.busy = True
                report.say("fail", f"the model endpoint {base_url} is busy: it took the connection but answered "
                                   f"nothing in {time.monotonic() - asked:.0f} s (a local server answers one "
                                   "request at a time); try again once it has finished what it is working on")
                return report
            if say_now is not None:
                say_now(f"the model endpoint {base_url} is busy (it took the connection but has not answered "
                        f"for {timeout_s:g} s); waiting up to {BUSY_MOST_S:g} s for it")
            read_s = BUSY_MOST_S - timeout_s
            continue
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ConnectionRefusedError) and time.monotonic() < deadline:
                time.sleep(0.2)  # a server started a moment ago (`goalbot demo --serve-only &`) is let start
                continue
            waited = (f" (nothing listened there for {STARTING_GRACE_S:g} s)"
                      if isinstance(reason, ConnectionRefusedError) and waits else "")
            report.say("fail", f"cannot reach the model endpoint {base_url}: {reason}{waited}")
            return report
    if read_s > timeout_s:
        report.say("warn", f"the model endpoint {base_url} was busy: it answered after "
                           f"{time.monotonic() - asked:.0f} s")
    meant = _with_v1(root, api_key, timeout_s) if status == 404 else None
    if meant is not None:
        report.say("fail", f"{base_url} has no model list (HTTP 404), but {meant} has: did you mean "
                           f"--base-url {meant}?")
    elif status in (401, 403):
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


class TooSlow(TimeoutError):
    """The endpoint kept the request going past its whole bound (a byte at a time, say)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no whole answer within {seconds:g} s")
        self.seconds = seconds


def _ask(request: urllib.request.Request, api_key: str, timeout_s: float) -> tuple[int, str, bytes]:
    """One request, bounded in all: `timeout_s` for each read, and REQUEST_MOST_S for the whole of
    it — an endpoint that drips its answer a byte at a time never waits out a per-read timeout."""
    request.add_header("Accept", "application/json")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    with Deadline(max(timeout_s, REQUEST_MOST_S)) as deadline:
        try:
            with deadline.opener().open(request, timeout=timeout_s) as response:
                answer = response.status, response.headers.get_content_type(), response.read(1_000_000)
        except urllib.error.HTTPError as exc:
            answer = exc.code, exc.headers.get_content_type(), exc.read(100_000)
        except OSError:
            deadline.check()
            raise
        except http.client.HTTPException as exc:  # cut off mid-answer: by the deadline, or by the server
            deadline.check()
            raise OSError(f"the answer broke off ({type(exc).__name__})") from exc
        deadline.check()
        return answer


class Deadline:
    """A bound on a whole request: when it passes, the request's sockets are shut, which ends a
    read blocked on them at once; `check` then says so."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._passed = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self._passed:
                _shut(sock)
        return sock

    def check(self) -> None:
        if self._passed:
            raise TooSlow(self.seconds)

    def opener(self) -> urllib.request.OpenerDirector:
        return urllib.request.build_opener(_WatchedHTTP(self), _WatchedHTTPS(self))

    def _expire(self) -> None:
        with self._lock:
            self._passed = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _watched(base: type[http.client.HTTPConnection], deadline: Deadline) -> type[http.client.HTTPConnection]:
    class Watched(base):  # type: ignore[valid-type, misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # The socket as it is made, so a proxy's tunnel or a TLS handshake that drips is cut too.
            self._create_connection = lambda *a, **k: deadline.watch(socket.create_connection(*a, **k))

        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)  # the TLS socket, which took the plain one's place

    return Watched


class _WatchedHTTP(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPConnection, self._deadline), req)


class _WatchedHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        # No context given: the connection makes the default one, which checks certificates and host.
        return self.do_open(_watched(http.client.HTTPSConnection, self._deadline), req)


def _with_v1(root: str, api_key: str, timeout_s: float) -> str | None:
    """`root/v1` when the address lacks the /v1 that OpenAI-compatible servers put their API under
    and `root/v1/models` answers with a model list."""
    if root.endswith("/v1"):
        return None
    try:
        status, _kind, body = _ask(urllib.request.Request(f"{root}/v1/models"), api_key, timeout_s)
        listed = json.loads(body)["data"]
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError):
        return None
    return f"{root}/v1" if status == 200 and isinstance(listed, list) else None


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

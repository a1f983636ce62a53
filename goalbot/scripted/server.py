"""A scripted, OpenAI-compatible model server on 127.0.0.1.

It answers `POST /v1/chat/completions` from a script of canned answers, one queue per role. The
role is recognised the way any model would: from the tools offered (`plan` → planner, `verdict` →
validator, anything else → navigator). goalbot talks to it like to any endpoint.

Script (JSON):

    {"planner":   [{"tool_calls": [{"name": "plan", "arguments": {...}}]}],
     "navigator": [{"tool_calls": [{"name": "click", "arguments": {"index": {"$element": "Save"}}}]},
                   {"content": "plain text, for a model that does not call tools"}],
     "validator": [...]}

`{"$element": "Save"}` stands for the index of the element named "Save" in the latest
observation the request carries, so scripts survive changes in numbering. `arguments` given as a
string are sent verbatim (that is how a script sends broken JSON).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class ScriptError(Exception):
    pass


def role_of(request: dict[str, Any]) -> str:
    names = {t.get("function", {}).get("name") for t in request.get("tools") or []}
    if "plan" in names:
        return "planner"
    if "verdict" in names:
        return "validator"
    return "navigator"


def _last_user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def resolve_element(name: str, observation: str) -> int:
    lines = re.findall(r"^\[(\d+)\] (.*)$", observation, re.MULTILINE)
    quoted = json.dumps(name, ensure_ascii=False)
    for index, rest in lines:
        if quoted in rest:
            return int(index)
    for index, rest in lines:
        if name.lower() in rest.lower():
            return int(index)
    raise ScriptError(f"no element named {name!r} in the observation")


def _fill(value: Any, observation: str) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$element"}:
            return resolve_element(value["$element"], observation)
        return {k: _fill(v, observation) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, observation) for v in value]
    return value


class Script:
    """Per-role queues of canned answers; thread-safe, consumed in order."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        unknown = set(answers) - {"planner", "navigator", "validator"}
        if unknown:
            raise ScriptError(f"unknown roles in script: {sorted(unknown)}")
        self._queues = {role: list(items) for role, items in answers.items()}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str | Path) -> Script:
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def next_answer(self, role: str) -> dict[str, Any] | None:
        with self._lock:
            queue = self._queues.get(role, [])
            return queue.pop(0) if queue else None

    def remaining(self) -> dict[str, int]:
        with self._lock:
            return {role: len(queue) for role, queue in self._queues.items()}


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedModelServer  # type: ignore[assignment]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(HTTPStatus.OK, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(HTTPStatus.NOT_FOUND, {"error": {"message": "not found"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length))
        except json.JSONDecodeError:
            self._json(HTTPStatus.BAD_REQUEST, {"error": {"message": "body is not JSON"}})
            return
        self._json(HTTPStatus.OK, self.server.answer(request))


class ScriptedModelServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        role = role_of(request)
        self.requests.append({"role": role, **request})
        observation = _last_user_text(request)
        canned = self.script.next_answer(role)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if canned is None:
            message["content"] = f"(the script has no answer left for the {role})"
        else:
            message["content"] = canned.get("content")
            calls = []
            try:
                for call in canned.get("tool_calls", []):
                    arguments = call.get("arguments", {})
                    if not isinstance(arguments, str):
                        arguments = json.dumps(_fill(arguments, observation), ensure_ascii=False)
                    calls.append({
                        "id": f"call_{next(self._ids)}", "type": "function",
                        "function": {"name": call["name"], "arguments": arguments},
                    })
            except ScriptError as exc:
                calls, message["content"] = [], f"(script: {exc})"
            if calls:
                message["tool_calls"] = calls
        prompt_text = json.dumps(request.get("messages", []))
        completion_text = json.dumps(message)
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [{
                "index": 0, "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }],
            "usage": {
                "prompt_tokens": _tokens(prompt_text),
                "completion_tokens": _tokens(completion_text),
                "total_tokens": _tokens(prompt_text) + _tokens(completion_text),
            },
        }

    def start(self) -> ScriptedModelServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description="Serve a scripted OpenAI-compatible model.")
    parser.add_argument("script", help="JSON script of canned answers")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        script = Script.load(args.script)
    except (OSError, ValueError, ScriptError) as exc:
        print(f"scripted model: cannot load {args.script}: {exc}")
        return 2
    with ScriptedModelServer(script, args.port) as server:
        print(f"scripted model listening on {server.base_url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

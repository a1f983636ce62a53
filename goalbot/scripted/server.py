"""A scripted, OpenAI-compatible model server on 127.0.0.1.

It answers `POST /v1/chat/completions` from a script of canned answers, one queue per role. The
role is recognised the way any model would: from the tools offered (`plan` → planner, `verdict` →
validator, `patch` → patcher, `extracted` → extractor, `match` → matcher, anything else →
navigator). goalbot talks to it like to any endpoint.

Script (JSON):

    {"planner":   [{"tool_calls": [{"name": "plan", "arguments": {...}}]}],
     "navigator": [{"tool_calls": [{"name": "click", "arguments": {"index": {"$element": "Save"}}}]},
                   {"content": "plain text, for a model that does not call tools"}],
     "validator": [...]}

`{"$read": "(\\d+) rows", "as": "integer"}` stands for what the model reads off the page it was
sent: the regex's first group in the newest user message (`as`: "integer" or "number" makes it
one, commas dropped), so an extractor's answer is the page's own, not one the test wrote down.

`{"$element": "Save"}` stands for the index of the element named "Save" in the latest
observation the request carries, so scripts survive changes in numbering; `{"$element": "Save",
"role": "button"}` takes only a line of that role, as a model reading roles and names would;
`"after": "INV-1002"` takes the first such element after that text (a row's own "Download"). `arguments` given as a
string are sent verbatim (that is how a script sends broken JSON); `"finish_reason": "length"`
says the model was cut off.

A request without tools (a text dialect) is given to the role its system prompt names; GEPA's
reflection (a system prompt that asks for a `new_instruction`) to the `reflector`.

An entry may say `"when": "text"` (or a list of texts): it answers only a request whose system
prompt and latest user message (what it asks now, not its worked examples) hold every one of
them; entries before it that do not match are passed over, not used up. An entry with `"keep":
true` is never used up: a list of such entries answers like a set of rules, the first that
matches — how `goalbot tune` is scripted, whose number of calls is GEPA's to choose.

Misbehaviour on cue: an entry `{"fault": …}` takes the place of one answer.

- `{"fault": "rate_limit", "retry_after": 2}`: HTTP 429 with a Retry-After header;
- `{"fault": "server_error", "status": 503}`: HTTP 500 (or the status given);
- `{"fault": "auth"}`: HTTP 401;
- `{"fault": "hang", "seconds": 30}`: no answer for that long, then the connection closes;
- `{"fault": "drop"}`: the connection closes without any answer;
- `{"fault": "long_winded", "seconds": 30}`: a model that writes until its context fills: it works
  that long, then answers with a cut-off text; it stops early when the client goes away, as a
  server that watches its connections does;
- `{"fault": "truncated"}`: HTTP 200 whose JSON body stops halfway;
- `{"fault": "trickle", "bytes_per_s": 2}`: HTTP 200 whose body comes a byte at a time;
- `{"body": "<html>…"}` (or `"body_hex"` for bytes that are not UTF-8, `"status"`, `"content_type"`):
  exactly this body, whatever it is;
- `{"message": {…}}`: a completion around exactly this message (tool calls with arguments as an
  object, content as a list of parts, ids missing…); `{"completion": {…}}`: exactly this JSON body.
  `$element` works in both.

And for the whole script, `"server": {"tools": false, "tool_choice": false, "context_chars": 6000}`:
refuse requests that offer tools, as a model without tool support does, or that set
`tool_choice`, as some servers do (`"refusal_says": false`: with no word of why, as
llama-cpp-python's does), and refuse prompts longer than that many characters, as a model
with a small context window does; `"max_tokens": false` refuses that parameter as OpenAI's reasoning models do;
`"response_formats": ["json_object"]` takes only those types of
`response_format`, as llama-cpp-python's server does. None of these uses up an answer. `"refusal_status": 500` refuses
them with that status, as llama-cpp-python's server does. `"latency_s": 1.5` makes every answer take
that long, as a real model's does. `"one_at_a_time": true` answers one request at a time, the
others (GET /models too) waiting their turn, as a local server with one slot (llama-cpp-python's)
does; `"sees_client_leave": false` works a long-winded answer to its end though the client has
gone, as that server does with a request that does not stream.

Every request is kept in `requests` (its `max_tokens` among the rest), with `waited_s`: how long it
waited for its turn.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field


class ScriptError(Exception):
    pass


_ROLE_IN_PROMPT = re.compile(r"You are the (Planner|Navigator|Validator|Patcher|Extractor|Matcher)\b")
ROLES = ("planner", "navigator", "validator", "patcher", "extractor", "matcher", "reflector")


def role_of(request: dict[str, Any]) -> str:
    names = {t.get("function", {}).get("name") for t in request.get("tools") or []}
    if "plan" in names:
        return "planner"
    if "verdict" in names:
        return "validator"
    if "patch" in names:
        return "patcher"
    if "extracted" in names:
        return "extractor"
    if "match" in names:
        return "matcher"
    if not names:
        for message in request.get("messages", []):
            if message.get("role") == "system" and "`new_instruction`" in str(message.get("content") or ""):
                return "reflector"
            if message.get("role") == "system":
                found = _ROLE_IN_PROMPT.search(str(message.get("content") or ""))
                if found:
                    return found.group(1).lower()
    return "navigator"


_ELEMENT_IN_TEXT = re.compile(r"\$element\(([^)]*)\)")


class ServerRules(BaseModel):
    tools: bool = True
    tool_choice: bool = True
    context_chars: int | None = None
    max_tokens: bool = Field(True, description="False: refuse max_tokens by name, as OpenAI's reasoning models "
                             "do (they take max_completion_tokens).")
    refusal_status: int = Field(HTTPStatus.BAD_REQUEST, description="The status a refused parameter or prompt "
                                "is answered with: llama-cpp-python's server answers 500.")
    refusal_says: bool = Field(True, description="False: a refusal's body has no message, as when "
                               "llama-cpp-python's server fails an assertion on tool_choice.")
    response_formats: list[str] = Field(default_factory=lambda: ["json_schema", "json_object"],
                                        description="The response_format types taken; others are refused by name.")
    latency_s: float = 0.0
    models: list[str] = Field(default_factory=lambda: ["scripted"], description="What /models lists.")
    one_at_a_time: bool = Field(False, description="One request at a time, as a server with one slot; "
                                "GET /models waits its turn too, as llama-cpp-python's does.")
    sees_client_leave: bool = Field(True, description="False: a long-winded answer runs to its end though the "
                                    "client has gone, as llama-cpp-python's server does unless it streams.")
    repeat: bool = Field(False, description="A role that has given every answer starts over: a server "
                                            "that answers one run after another (the demo's).")


def _latest_observation(request: dict[str, Any]) -> str:
    """The newest user message that lists elements (a correction that follows it lists none)."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        if re.search(r"^\*?\[\d+\] ", str(content or ""), re.MULTILINE):
            return str(content)
    return ""


def _asked_now(request: dict[str, Any]) -> str:
    messages = request.get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    chosen = [m for m in messages if m.get("role") == "system"] + users[-1:]
    return json.dumps([m.get("content") for m in chosen], ensure_ascii=False)


def resolve_element(name: str, observation: str, role: str | None = None) -> int:
    """The index of the element named `name` (and of `role`, when given: the word its line starts
    with) in the observation: the quoted name first, then the name anywhere in the line, as a model
    reading the lines would pick it."""
    lines = re.findall(r"^\*?\[(\d+)\] (.*)$", observation, re.MULTILINE)
    if role is not None:
        lines = [(index, rest) for index, rest in lines if rest.split(" ", 1)[0] == role]
    quoted = json.dumps(name, ensure_ascii=False)
    for index, rest in lines:
        if quoted in rest:
            return int(index)
    for index, rest in lines:
        if name.lower() in rest.lower():
            return int(index)
    what = f"{role} named {name!r}" if role else f"element named {name!r}"
    raise ScriptError(f"no {what} in the observation")


def read_value(pattern: str, page: str, kind: str | None = None) -> Any:
    """The first group of `pattern` in `page` (the whole match without one), as `kind`."""
    found = re.search(pattern, page)
    if found is None:
        raise ScriptError(f"nothing on the page matches {pattern!r}")
    text = found.group(1) if found.groups() else found.group(0)
    if kind in ("integer", "number"):
        number = float(text.replace(",", ""))
        return int(number) if kind == "integer" else number
    return text


def _latest_user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _after(observation: str, text: str | None) -> str:
    """The observation from the first line holding `text` on: where a model reading a row's own
    text ("INV-1002") looks for that row's "Download", among rows whose buttons all say so."""
    if text is None:
        return observation
    at = observation.find(text)
    if at < 0:
        raise ScriptError(f"no text {text!r} in the observation")
    return observation[at:]


def _fill(value: Any, observation: str, page: str = "") -> Any:
    if isinstance(value, dict):
        if "$element" in value and set(value) <= {"$element", "role", "after"}:
            return resolve_element(value["$element"], _after(observation, value.get("after")), value.get("role"))
        if set(value) in ({"$read"}, {"$read", "as"}):
            return read_value(value["$read"], page or observation, value.get("as"))
        return {k: _fill(v, observation, page) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, observation, page) for v in value]
    return value


class Script:
    """Per-role queues of canned answers; thread-safe, consumed in order."""

    def __init__(self, answers: dict[str, Any]) -> None:
        answers = dict(answers)
        self.rules = ServerRules.model_validate(answers.pop("server", {}))
        unknown = set(answers) - set(ROLES)
        if unknown:
            raise ScriptError(f"unknown roles in script: {sorted(unknown)}")
        self._scripted = {role: list(items) for role, items in answers.items()}
        self._queues = {role: list(items) for role, items in answers.items()}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str | Path) -> Script:
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    @classmethod
    def demo(cls) -> Script:
        """The bundled demo's answers: every demo goal, by rules that are never used up."""
        return cls(json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8")))

    def next_answer(self, role: str, text: str = "") -> dict[str, Any] | None:
        """The first entry for `role` whose `when` the request's `text` holds; used up unless kept."""
        with self._lock:
            queue = self._queues.get(role, [])
            if not queue and self.rules.repeat:
                queue = self._queues[role] = list(self._scripted.get(role, []))
            for position, entry in enumerate(queue):
                when = entry.get("when", [])
                if all(part in text for part in ([when] if isinstance(when, str) else when)):
                    return entry if entry.get("keep") else queue.pop(position)
            return None

    def remaining(self) -> dict[str, int]:
        with self._lock:
            return {role: len(queue) for role, queue in self._queues.items()}


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


@dataclass
class Reply:
    """What the server does with one request: answer, or misbehave in one of the scripted ways."""

    status: int = HTTPStatus.OK
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    fault: str | None = None  # hang, drop, truncated, trickle
    seconds: float = 0.0
    raw: bytes | None = None  # sent as it is
    content_type: str = "application/json"


def _error(status: int, message: str, code: str | None = None, **headers: str) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "code": code}
    return Reply(status=status, body={"error": error}, headers=headers)


def fault_reply(canned: dict[str, Any]) -> Reply:
    kind = canned["fault"]
    if kind == "rate_limit":
        return _error(429, "Rate limit reached, please try again later", "rate_limit_exceeded",
                      **{"Retry-After": str(canned.get("retry_after", 1))})
    if kind == "server_error":
        return _error(int(canned.get("status", 500)), "The server had an error processing the request")
    if kind == "auth":
        return _error(401, "Incorrect API key provided", "invalid_api_key")
    if kind == "long_winded":
        cut_off = {"role": "assistant", "content": "Let me think about this step by step. " * 40}
        return Reply(fault=kind, seconds=float(canned.get("seconds", 30)),
                     body={"object": "chat.completion", "model": "scripted",
                           "choices": [{"index": 0, "message": cut_off, "finish_reason": "length"}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 8192, "total_tokens": 8193}})
    if kind in ("hang", "drop", "truncated"):
        return Reply(fault=kind, seconds=float(canned.get("seconds", 30)))
    if kind == "trickle":
        return Reply(fault=kind, seconds=1 / float(canned.get("bytes_per_s", 2)), body={"choices": []})
    raise ScriptError(f"unknown fault {kind!r}")


def raw_reply(canned: dict[str, Any]) -> Reply:
    """`body` / `body_hex`: exactly these bytes."""
    if "body_hex" in canned:
        data = bytes.fromhex(canned["body_hex"])
    else:
        body = canned["body"]
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
    return Reply(status=int(canned.get("status", 200)), raw=data,
                 content_type=canned.get("content_type", "application/json"))


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedModelServer  # type: ignore[assignment]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, reply: Reply) -> None:
        if reply.fault == "hang":
            time.sleep(reply.seconds)
            self.close_connection = True
            return
        if reply.fault == "drop":
            self.close_connection = True
            return
        if reply.fault == "long_winded" and not self.server.script.rules.sees_client_leave:
            time.sleep(reply.seconds)
        elif reply.fault == "long_winded" and not self._works_while_client_stays(reply.seconds):
            self.server.abandoned += 1
            self.close_connection = True
            return
        data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        if reply.fault == "truncated":
            data = data[: len(data) // 2]
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(data) if reply.fault != "trickle" else 10_000))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if reply.fault == "trickle":  # a server that never quite finishes, never quite stops
            for _ in range(10_000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(reply.seconds)
            return
        self.wfile.write(data)

    def _works_while_client_stays(self, seconds: float) -> bool:
        """False as soon as the client closes its connection: the work is stopped, not finished."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.05))
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return False
                except OSError:
                    return False
        return True

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":  # only under /v1, as real servers serve it
            self.server.model_lists += 1
            listed = [{"id": name, "object": "model"} for name in self.server.script.rules.models]
            if self.server.script.rules.one_at_a_time:
                with self.server.slot:
                    self._send(Reply(body={"object": "list", "data": listed}))
            else:
                self._send(Reply(body={"object": "list", "data": listed}))
        else:
            self._send(_error(HTTPStatus.NOT_FOUND, "not found"))

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(_error(HTTPStatus.NOT_FOUND, "not found"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length))
        except json.JSONDecodeError:
            self._send(_error(HTTPStatus.BAD_REQUEST, "body is not JSON"))
            return
        try:
            if self.server.script.rules.one_at_a_time:
                asked = time.monotonic()
                with self.server.slot:
                    self._send(self.server.answer(request, waited_s=time.monotonic() - asked))
            else:
                self._send(self.server.answer(request))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (it timed out): nothing to tell it


class ScriptedModelServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.model_lists = 0  # GET /models: how often a door asked whether the endpoint answers
        self.slot = threading.Lock()  # with one_at_a_time: the one request being worked on
        self.abandoned = 0  # long-winded answers stopped because the client went away
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        return f"http://{host}:{port}/v1"

    def answer(self, request: dict[str, Any], waited_s: float = 0.0) -> Reply:
        role = role_of(request)
        self.requests.append({"role": role, "waited_s": round(waited_s, 3), **request})
        rules = self.script.rules
        if request.get("tools") and not rules.tools:
            return _error(rules.refusal_status, f"{request.get('model')} does not support tools")
        if request.get("tool_choice") and not rules.tool_choice:
            said = f"tool_choice {request['tool_choice']!r} is not supported" if rules.refusal_says else ""
            return _error(rules.refusal_status, said)
        if "max_tokens" in request and not rules.max_tokens:
            return _error(HTTPStatus.BAD_REQUEST, "Unsupported parameter: 'max_tokens' is not supported with this "
                          "model. Use 'max_completion_tokens' instead.", "unsupported_parameter")
        form = (request.get("response_format") or {}).get("type")
        if form and form not in rules.response_formats:
            return _error(rules.refusal_status, f"body.response_format.type: Input should be "
                                                f"{' or '.join(map(repr, ['text', *rules.response_formats]))}")
        prompt_text = json.dumps(request.get("messages", []), ensure_ascii=False)
        if rules.context_chars is not None and len(prompt_text) > rules.context_chars:
            return _error(
                rules.refusal_status,
                f"This model's maximum context length is {rules.context_chars // 4} tokens. However, "
                f"your messages resulted in {len(prompt_text) // 4} tokens. Please reduce the length.",
                "context_length_exceeded",
            )
        canned = self.script.next_answer(role, _asked_now(request))
        time.sleep(rules.latency_s)  # a model's thinking time, for benchmarks
        if canned is not None and "fault" in canned:
            return fault_reply(canned)
        if canned is not None and ("body" in canned or "body_hex" in canned):
            return raw_reply(canned)
        observation, page = _latest_observation(request), _latest_user_text(request)
        if canned is not None and "completion" in canned:
            return Reply(body=_fill(canned["completion"], observation, page))
        if canned is not None and "message" in canned:
            message = _fill(canned["message"], observation, page)
        else:
            message = self._message(role, canned, observation, page)
        completion_text = json.dumps(message)
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        finish = (canned or {}).get("finish_reason") or ("tool_calls" if calls else "stop")
        return Reply(body={
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": _tokens(prompt_text),
                "completion_tokens": _tokens(completion_text),
                "total_tokens": _tokens(prompt_text) + _tokens(completion_text),
            },
        })

    def _message(self, role: str, canned: dict[str, Any] | None, observation: str, page: str = "") -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if canned is None:
            message["content"] = f"(the script has no answer left for the {role})"
            return message
        content = canned.get("content")
        calls = []
        try:
            for call in canned.get("tool_calls", []):
                arguments = call.get("arguments", {})
                if not isinstance(arguments, str):
                    arguments = json.dumps(_fill(arguments, observation, page), ensure_ascii=False)
                calls.append({
                    "id": f"call_{next(self._ids)}", "type": "function",
                    "function": {"name": call["name"], "arguments": arguments},
                })
            if isinstance(content, str):  # `$element(Save)` in text answers, as in tool calls
                content = _ELEMENT_IN_TEXT.sub(lambda m: str(resolve_element(m.group(1), observation)), content)
            message["content"] = content
        except ScriptError as exc:
            calls, message["content"] = [], f"(script: {exc})"
        if calls:
            message["tool_calls"] = calls
        return message

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

"""A perfect model on 127.0.0.1 that speaks both agents' protocols, and counts what each asks.

goalbot offers tools (`plan`, `verdict`, the navigator's actions) and reads tool calls;
browser-use asks for JSON content after a `response_format` schema (its agent's step, its judge).
Both get the same decisions: the task's actions, page by page, each on the element with the
intended name in the page as the request shows it, then the end of the task and a yes from the
judge. Answers are instant, so every second measured is the framework's.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from goalbot.scripted.server import ScriptError, resolve_element

from tasks import Intent, Task


@dataclass
class Call:
    role: str
    prompt_chars: int
    system_chars: int
    images: int
    seconds: float  # spent answering
    at: float  # when the answer left


@dataclass
class Episode:
    task: Task
    next_page: int = 0
    ended: bool = False
    calls: list[Call] = field(default_factory=list)


def _text(content: Any) -> tuple[str, int]:
    if isinstance(content, list):
        texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        images = sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")
        return "\n".join(texts), images
    return str(content or ""), 0


FINISH_ALONG = "end the same answer with `finished`"
_BU_ELEMENT = re.compile(r"\[(\d+)\]<(\w+)([^>]*)>")
_BU_ATTRIBUTE = re.compile(r"([\w-]+)=('[^']*'|\"[^\"]*\"|[^ />]+)")


def browser_use_index(name: str, state: str) -> int:
    """The index of the element named `name` in browser-use's `<browser_state>` text."""
    blocks: list[tuple[int, list[str]]] = []
    for line in state.splitlines():
        found = _BU_ELEMENT.search(line)
        if found:
            values = [v.strip("'\"") for _k, v in _BU_ATTRIBUTE.findall(found.group(3))]
            blocks.append((int(found.group(1)), [*values, line[found.end():].strip()]))
        elif blocks and line.strip():
            blocks[-1][1].append(line.strip())
    wanted = name.lower()
    for index, words in blocks:
        if any(w.lower() == wanted for w in words):
            return index
    for index, words in blocks:
        if any(wanted in w.lower() for w in words):
            return index
    raise ScriptError(f"no element named {name!r}")


class PerfectModel:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.episode: Episode | None = None

    def begin(self, task: Task) -> Episode:
        with self.lock:
            self.episode = Episode(task)
            return self.episode

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        texts, images, system = [], 0, 0
        for message in request.get("messages", []):
            text, pictures = _text(message.get("content"))
            texts.append(text)
            images += pictures
            system += len(text) if message.get("role") == "system" else 0
        with self.lock:
            episode = self.episode
            assert episode is not None, "no episode begun"
            schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
            if schema:
                role, message = self._browser_use(episode, schema, texts)
            else:
                role, message = self._goalbot(episode, request, texts)
            episode.calls.append(Call(role, sum(map(len, texts)), system, images,
                                      time.monotonic() - started, time.monotonic()))
        return message

    # -- the next actions, whoever asks ------------------------------------------------------

    def _next_page(self, episode: Episode, find: Any) -> list[tuple[Intent, int]] | None:
        """The actions for the first page not yet done whose elements are all on view, or None."""
        for number in range(episode.next_page, len(episode.task.pages)):
            try:
                resolved = [(intent, find(intent.element)) for intent in episode.task.pages[number]]
            except ScriptError:
                continue
            episode.next_page = number + 1
            return resolved
        return None

    def _goalbot(self, episode: Episode, request: dict[str, Any], texts: list[str]) -> tuple[str, dict[str, Any]]:
        tools = {t["function"]["name"] for t in request.get("tools") or []}
        goal = episode.task.goal
        page = next((t for t in reversed(texts) if re.search(r"^\*?\[\d+\] ", t, re.MULTILINE)), "")
        if "plan" in tools:
            # One step, and the page already shows it: the plan carries its actions, as offered.
            first: list[dict[str, Any]] = []
            if "first_actions" in json.dumps(request.get("tools")):
                actions = self._next_page(episode, lambda name: resolve_element(name, page))
                first = [{"action": name, **args} for name, args in _goalbot_actions(actions or [], episode.task)]
                if first and episode.next_page == len(episode.task.pages):
                    first.append({"action": "finished", "summary": "Did what the step asked."})
            return "planner", _calls(("plan", {"observation": "The page for the goal.", "steps": [goal],
                                               "progress_percent": 0, "confidence": 0.9, "first_actions": first}))
        if "verdict" in tools:
            return "validator", _calls(("verdict", {"is_valid": True, "reason": "The page confirms it.",
                                                    "answer": "Done.", "confidence": 0.9}))
        actions = self._next_page(episode, lambda name: resolve_element(name, page))
        calls = _goalbot_actions(actions or [], episode.task)
        # As the prompt allows: ending an answer with `finished` is an offer some versions make.
        finish_along = FINISH_ALONG in " ".join(texts[0].split()) if texts else False
        if episode.next_page == len(episode.task.pages) and (finish_along or not calls):
            calls.append(("finished", {"success": True, "summary": "Did what the step asked."}))
        elif actions is None:
            calls.append(("wait", {}))
        return "navigator", _calls(*calls)

    def _browser_use(self, episode: Episode, schema: dict[str, Any], texts: list[str]) -> tuple[str, dict[str, Any]]:
        if "verdict" in schema.get("properties", {}):
            return "judge", _content({"reasoning": "The page confirms it.", "verdict": True, "failure_reason": "",
                                      "impossible_task": False, "reached_captcha": False})
        state = next((t for t in reversed(texts) if "<browser_state>" in t), "")
        if episode.next_page == len(episode.task.pages):
            actions: list[dict[str, Any]] = [{"done": {"text": "Done.", "success": True, "files_to_display": []}}]
        else:
            resolved = self._next_page(episode, lambda name: browser_use_index(name, state))
            actions = [_browser_use_action(intent, index) for intent, index in resolved or []]
            actions = actions or [{"wait": {"seconds": 1}}]
        return "agent", _content({"thinking": "", "evaluation_previous_goal": "Success", "memory": "",
                                  "next_goal": "Go on.", "current_plan_item": None, "plan_update": None,
                                  "action": actions})


def _goalbot_actions(actions: list[tuple[Intent, int]], task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The intents as goalbot's actions; a secret's value as its reference, as goalbot's model sees it."""
    secrets = {value: f"<secret:{name}>" for name, value in task.secrets}
    calls: list[tuple[str, dict[str, Any]]] = []
    for intent, index in actions:
        if intent.kind == "type":
            calls.append(("type", {"index": index, "text": secrets.get(intent.text, intent.text)}))
        elif intent.kind == "select":
            calls.append(("select_option", {"index": index, "option": intent.text}))
        else:
            calls.append(("click", {"index": index}))
    return calls


def _browser_use_action(intent: Intent, index: int) -> dict[str, Any]:
    if intent.kind == "type":
        return {"input": {"index": index, "text": intent.text, "clear": True}}
    if intent.kind == "select":
        return {"select_dropdown": {"index": index, "text": intent.text}}
    return {"click": {"index": index}}


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for n, (name, args) in enumerate(calls)]}


def _content(answer: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": json.dumps(answer)}


def serve_model(model: PerfectModel) -> tuple[str, ThreadingHTTPServer]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            message = model.answer(request)
            chars = sum(len(_text(m.get("content"))[0]) for m in request.get("messages", []))
            body = json.dumps({
                "id": "perfect", "object": "chat.completion", "created": int(time.time()), "model": "perfect",
                "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                             "message": message}],
                "usage": {"prompt_tokens": chars // 4, "completion_tokens": 20, "total_tokens": chars // 4 + 20},
            }).encode()
            self._send(body)

        def do_GET(self) -> None:  # the model list every OpenAI-compatible server has
            self._send(json.dumps({"object": "list", "data": [{"id": "perfect", "object": "model"}]}).encode())

        def _send(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1", server

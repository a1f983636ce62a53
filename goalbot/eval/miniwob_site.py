"""The MiniWoB++ pages of the `miniwob` package, served on 127.0.0.1 for `goalbot eval`.

A page is asked for as `/miniwob/TASK.html?seed=S&ep=ID`. Into it goes a few lines after MiniWoB's
own core: the episode starts at once (no START cover to click), its random numbers seeded with S so
the same seed is the same problem, its clock long enough for a model that takes seconds a call; and
when the page ends the episode, its reward is reported back here under ID and the page is covered,
as MiniWoB covers it between problems. Only the first reward of an episode counts: a reload is not
a second try. The package is found, not imported (importing it starts gymnasium's registry)."""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel

EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TASK_PAGE = re.compile(r"^/miniwob/(?P<task>[a-z0-9-]{1,64})\.html$")
CORE = '<script src="../core/core.js"></script>'
EPISODE_MS = 30 * 60 * 1000
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".png": "image/png",
         ".json": "application/json", ".svg": "image/svg+xml", ".gif": "image/gif", ".jpg": "image/jpeg"}


class MiniwobMissing(RuntimeError):
    pass


class Reward(BaseModel):
    reward: float
    raw: float
    reason: str | None = None


def pages_dir() -> Path:
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniwobMissing("goalbot eval needs the miniwob package's pages: pip install 'goalbot[eval]' "
                             "(from a checkout: pip install -e '.[eval]')")
    found = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (found / "core" / "core.js").is_file():
        raise MiniwobMissing(f"the miniwob package at {found.parent} has no pages (html/core/core.js)")
    return found


def _episode_script(seed: int, episode: str | None) -> str:
    report = "" if episode is None else f"""
  var ended = core.endEpisode;
  core.endEpisode = function (reward, timeProportional, reason) {{
    var live = core.EP_TIMER !== null;
    ended.apply(core, arguments);
    if (!live) return;
    var q = new URLSearchParams({{ep: {json.dumps(episode)}, reward: String(WOB_REWARD_GLOBAL),
                                  raw: String(WOB_RAW_REWARD_GLOBAL), reason: String(reason || "")}});
    fetch("/__eval/reward?" + q.toString(), {{keepalive: true}});
  }};"""
    return f"""<script>
(function () {{
  var begun = false;
  core.startEpisode = function () {{
    core.createDisplay();
    if (core.cover_div == null) {{
      core.cover_div = document.createElement('div');
      core.cover_div.setAttribute('id', 'sync-task-cover');
      document.body.appendChild(core.cover_div);
    }}
    if (begun) {{  // MiniWoB starts the next problem when one ends; an eval's episode is one problem
      core.cover_div.innerHTML = 'DONE';
      core.cover_div.style.display = 'block';
      return;
    }}
    begun = true;
    core.EPISODE_MAX_TIME = {EPISODE_MS};  // here, after the task's own scripts have set theirs
    Math.seedrandom({json.dumps(str(seed))});
    core.cover_div.style.display = 'none';
    core.startEpisodeReal();
  }};{report}
}})();
</script>"""


@dataclass
class _State:
    root: Path
    rewards: dict[str, Reward]
    lock: threading.Lock


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        if parts.path == "/__eval/reward":
            self._reward(query)
            return
        task = TASK_PAGE.match(parts.path)
        if task is not None:
            self._task_page(task["task"], query)
            return
        self._file(parts.path)

    def _reward(self, query: dict[str, str]) -> None:
        episode = query.get("ep", "")
        try:
            reward = Reward(reward=float(query.get("reward", "")), raw=float(query.get("raw", "")),
                            reason=query.get("reason") or None)
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST, b"bad reward", "text/plain")
            return
        if EPISODE_ID.match(episode):
            with self.server.state.lock:
                self.server.state.rewards.setdefault(episode, reward)
        self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")

    def _task_page(self, task: str, query: dict[str, str]) -> None:
        path = self.server.state.root / "miniwob" / f"{task}.html"
        try:
            seed = int(query.get("seed", "0"))
        except ValueError:
            seed = -1
        episode = query.get("ep")
        if not path.is_file() or seed < 0 or (episode is not None and not EPISODE_ID.match(episode)):
            self._send(HTTPStatus.NOT_FOUND, b"no such episode", "text/plain")
            return
        page = path.read_text(encoding="utf-8")
        page = page.replace(CORE, CORE + _episode_script(seed, episode), 1)
        self._send(HTTPStatus.OK, page.encode(), TYPES[".html"])

    def _file(self, path: str) -> None:
        root = self.server.state.root.resolve()
        wanted = (root / path.lstrip("/")).resolve()
        if not wanted.is_relative_to(root) or not wanted.is_file():
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
            return
        self._send(HTTPStatus.OK, wanted.read_bytes(), TYPES.get(wanted.suffix, "application/octet-stream"))

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State


class MiniwobSite:
    """The pages on a free port of 127.0.0.1 while in a `with`; `reward(episode)` is what an
    episode's page reported, or None while it has not ended."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = _State(root=pages_dir(), rewards={}, lock=threading.Lock())
        self._thread = threading.Thread(target=self._server.serve_forever, name="miniwob-site", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def page(self, task: str, seed: int, episode: str | None = None) -> str:
        tail = "" if episode is None else f"&ep={episode}"
        return f"{self.url}/miniwob/{task}.html?seed={seed}{tail}"

    def reward(self, episode: str) -> Reward | None:
        with self._server.state.lock:
            return self._server.state.rewards.get(episode)

    def __enter__(self) -> MiniwobSite:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

"""What tests share: running goalbot, scripting the model, reading the store, waiting for a
condition. Test files import helpers from here only; fixtures live in conftest.py."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable, Iterator

from goalbot import actions as A
from goalbot.operators.browser.operator import BrowserOperator

REPO = Path(__file__).resolve().parent.parent


# -- waiting -------------------------------------------------------------------------------------


def wait_until(condition: Callable[[], object], seconds: float = 60, what: str = "the condition",
               every: float = 0.1) -> Any:
    """Polls `condition` until it returns something true, and returns that. A store that does not
    exist yet, or has no tables yet, is "not yet", never an error. Deadlines, never fixed sleeps:
    a loaded machine takes longer, and that is all."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = condition()
            if found:
                return found
        except sqlite3.Error:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:g} s")
        time.sleep(every)


# -- the scripted model --------------------------------------------------------------------------


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def answer(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": list(calls)}


def plan(*steps: str, confidence: float = 0.7) -> dict[str, Any]:
    return answer(call("plan", observation="page", steps=list(steps), progress_percent=0, confidence=confidence))


def verdict(ok: bool, reason: str, confidence: float = 0.9, answer_text: str = "") -> dict[str, Any]:
    return answer(call("verdict", is_valid=ok, reason=reason, confidence=confidence, answer=answer_text))


def finished(ok: bool = True, summary: str = "done") -> dict[str, Any]:
    return answer(call("finished", success=ok, summary=summary))


def element(name: str, role: str | None = None) -> dict[str, str]:
    """The index of the element named `name` (of `role`, when given) in the observation the model
    is sent: picked by what the model reads, never by a fixed index."""
    return {"$element": name} if role is None else {"$element": name, "role": role}


def darkmode_script() -> dict[str, Any]:
    """The model's answers that sign alice in and turn on dark mode on hardsite's darkmode.html:
    the run recipes are recorded from."""
    return {
        "planner": [plan("Sign in as alice", "Turn on dark mode and save")],
        "navigator": [
            answer(call("type", index=element("User"), text="alice")),
            answer(call("type", index=element("Password"), text="<secret:PW>")),
            answer(call("click", index=element("Sign in"))),
            finished(summary="signed in"),
            answer(call("click", index=element("Dark mode"))),
            answer(call("click", index=element("Save"))),
            finished(summary="saved"),
        ],
        "validator": [verdict(True, "signed in"), verdict(True, "signed in, dark mode on and saved")],
    }


# The sign-in demo's answers, in the order a run asks for them.
SIGN_IN = {"planner": ["dark mode"],
           "navigator": ["Sign in with the demo account", "Turn on the dark mode switch"],
           "validator": ["Sign in with the demo account", "Turn on the dark mode switch"]}


def demo_script() -> dict[str, Any]:
    """The sign-in demo's answers as a queue a test can add to or put faults in: the bundled
    script answers every demo goal by rules that are never used up; a test wants its own order."""
    script = json.loads(files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8"))

    def entry(role: str, when: str) -> dict[str, Any]:
        found = next(e for e in script[role] if e.get("when") == when)
        return {key: value for key, value in found.items() if key not in ("when", "keep")}

    return {role: [entry(role, when) for when in whens] for role, whens in SIGN_IN.items()}


# -- the store -----------------------------------------------------------------------------------


def action_gaps(db_path: Path, sessions: set[str]) -> list[float]:
    """Seconds between one action on the site starting and the next, over `sessions` together
    (reading the page, extracting and choosing, is not an action the site sees)."""
    from datetime import datetime

    starts = sorted(datetime.fromisoformat(r["ts"]) for r in rows(db_path, "select session_id, ts, data from events "
                                                                            "where type = 'ACT_START'")
                    if r["session_id"] in sessions
                    and json.loads(r["data"])["action"]["name"] not in ("extract", "choose"))
    return [(later - earlier).total_seconds() for earlier, later in zip(starts, starts[1:])]


def rows(db_path: Path, sql: str, *params: object) -> list[sqlite3.Row]:
    if not db_path.exists():  # never make an empty file where a run will make the store
        raise sqlite3.OperationalError(f"no store at {db_path} yet")
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def stored_events(db_path: Path) -> list[dict[str, Any]]:
    """Every stored event in order, as `{type, actor, step, **data}`."""
    return [{"type": r["type"], "actor": r["actor"], "step": r["step"], **json.loads(r["data"])}
            for r in rows(db_path, "select type, actor, step, data from events order by session_id, seq")]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# -- running goalbot -----------------------------------------------------------------------------


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goalbot", *args],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})}, cwd=REPO,
    )


def run_goal(db_path: Path, model: Any, url: str, goal: str, *flags: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`goalbot run GOAL --no-tui --yes` against the scripted model (later flags win), and what
    it stored. Whatever happens, the person never sees a traceback."""
    result = run_cli("--db", str(db_path), "run", goal, "--url", url, "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted", *flags)
    assert "Traceback" not in result.stderr, result.stderr
    return result, stored_events(db_path) if db_path.exists() else []


def stored_session(
    db_path: Path, options: Any, operator: Any, model: Any, control: Any = None, limits: Any = None,
) -> tuple[Any, Any]:
    """A `Session` in this process, as `goalbot run` wires it, recorded in `db_path`, asking the
    scripted `model`: for tests that bring their own operator or watch the bus. Returns the session
    and its recorder (close it after the run)."""
    from goalbot.agents.control import SessionControl
    from goalbot.agents.session import ModelSetup, Session
    from goalbot.events import Bus
    from goalbot.llm.client import ModelConfig
    from storage.recorder import Recorder

    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    session = Session(options, operator, ModelSetup(ModelConfig(base_url=model.base_url, model="scripted"),
                                                    limits=limits),
                      bus, control or SessionControl(auto_approve=True))
    return session, recorder


async def open_page(browser: BrowserOperator, url: str) -> str:
    assert (await browser.execute(A.Navigate(url=url))).ok
    return (await browser.observe()).render()


@contextmanager
def xvfb(size: str = "1366x900x24") -> Iterator[str]:
    """A real X display of its own; yields its DISPLAY name. Xvfb picks a free display number
    itself, so tests in parallel never share one."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write,))
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def store_with_sessions(path: Path, count: int = 5, events_each: int = 20) -> None:
    """A real store written as a run writes it: through the recorder, from events on a bus."""
    from goalbot.events import Actor, Bus, Emitter, EventType
    from storage.recorder import Recorder

    recorder = Recorder(path)
    for number in range(count):
        bus = Bus()
        recorder.attach(bus)
        emitter = Emitter(bus, f"s{number:03d}")
        emitter.emit(EventType.TASK_START, Actor.USER, None, goal=f"goal {number}", url="http://shop.test/",
                     model="m", base_url="http://127.0.0.1:1/v1", max_steps=5)
        for tick in range(events_each):
            emitter.emit(EventType.POLICY, Actor.SYSTEM, 1, policy="min_interval", message=f"waiting {tick}")
        emitter.emit(EventType.TASK_FAIL, Actor.SYSTEM, None, reason="net::ERR_UNSAFE_PORT")
    recorder.close()


def free_port_pair() -> int:
    """A port N with N+1 free too (the demo's site and model, as `goalbot demo --serve-only --port N`)."""
    import socket

    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        try:
            with socket.socket() as second:
                second.bind(("127.0.0.1", port + 1))
            return int(port)
        except OSError:
            continue

"""Figures for the dashboard's screens that read the store: how long a key press in the sessions
filter takes to show on a big store, and how soon a long session's replay is on screen.

    python bench/store_screens.py [--sessions 20000] [--events 50000]

- filter: a store of N sessions; for each character typed into the filter, the time until the table
  shows the answer, and the longest the UI thread went without a heartbeat (ticking every 5 ms)
  while the search ran: what a person typing feels as a stall.
- replay: a session of N events; from the app's start until the replay screen has drawn its head,
  and until every event is read.

Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goalbot.events import Actor, Bus, Emitter, EventType as T  # noqa: E402
from storage.recorder import Recorder  # noqa: E402
from tui.app import GoalbotApp  # noqa: E402
from tui.images import prepare_images  # noqa: E402
from tui.screens.replay import ReplayScreen  # noqa: E402
from tui.screens.sessions import SessionsScreen  # noqa: E402


def fill(db: Path, sessions: int, events_in_last: int) -> str:
    recorder = Recorder(db)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "none")
    for n in range(sessions):
        emitter = Emitter(bus, f"bench-{n:06d}")
        emitter.emit(T.TASK_START, Actor.SYSTEM, goal=f"goal number {n} about the weather in town {n % 97}",
                     model="m", base_url="u", max_steps=20)
    for n in range(events_in_last):
        emitter.emit(T.ACT_OK, Actor.NAVIGATOR, 1 + n // 10, action={"name": "click", "index": n % 40},
                     message=f"clicked [{n % 40}]")
    recorder.close()
    return emitter.session_id


async def until(pilot: object, condition: object, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        await pilot.pause(0.01)  # type: ignore[attr-defined]


async def filter_typing(db: Path) -> tuple[list[float], float]:
    """(seconds until each key's answer is shown, the longest stall of the UI thread)."""
    answers: list[float] = []
    beats: list[float] = []
    app = GoalbotApp(db_path=db, opening="sessions")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and getattr(app.screen, "ready", True))
        screen = app.screen
        await pilot.press("slash")
        app.set_interval(0.005, lambda: beats.append(time.perf_counter()))
        for key in "town 42":
            started = time.perf_counter()
            await pilot.press("space" if key == " " else key)
            await until(pilot, lambda: getattr(screen, "ready", True))
            answers.append(time.perf_counter() - started)
    stall = max((b - a for a, b in zip(beats, beats[1:])), default=0.0)
    return answers, stall


async def replay_opening(db: Path, session_id: str) -> tuple[float, float]:
    started = time.perf_counter()
    app = GoalbotApp(db_path=db, session_id=session_id, opening="replay")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query_one("#replay-head"))
        shown = time.perf_counter() - started
        await until(pilot, lambda: getattr(app.screen, "ready", True))
        read = time.perf_counter() - started
    return shown, read


async def main(sessions: int, events: int) -> None:
    prepare_images("none")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        longest = fill(db, sessions, events)
        answers, stall = await filter_typing(db)
        print(f"sessions filter on {sessions:,} sessions: the table answers a key in "
              f"{statistics.median(answers) * 1000:.0f} ms (median, worst {max(answers) * 1000:.0f} ms); "
              f"the UI thread's longest stall while typing: {stall * 1000:.0f} ms")
        shown, read = await replay_opening(db, longest)
        print(f"replay of {events:,} events: on screen after {shown:.2f} s, every event read after {read:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--events", type=int, default=50_000)
    args = parser.parse_args()
    asyncio.run(main(args.sessions, args.events))

"""What a newcomer waits for: `goalbot --help`, the dashboard's first frame, the demo's plan, and
the screens that read a big store.

    python bench/first_screen.py [--runs 5]

Each figure is a fresh process in a real pseudo-terminal (160×45, xterm-256color), timed from
spawning it, wall and CPU: `goalbot --help` to its exit; `goalbot` (bare) to its first frame;
`goalbot sessions` to its first frame (the status filter drawn) and, with 1,000 stored sessions,
to its table filled; `goalbot replay` of a 2,000-event session to its first events drawn;
`goalbot demo` to its plan waiting for approval on the screen. Medians; nothing here asserts.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import resource
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

GOALBOT = [sys.executable, "-m", "goalbot"]


def help_once() -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run([*GOALBOT, "--help"], stdout=subprocess.DEVNULL, check=True, cwd=REPO)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def until_on_screen(command: list[str], text: bytes, env: dict[str, str], seconds: float = 120) -> float:
    """Seconds from spawning `command` in a terminal to `text` in what it draws; then it is ended."""
    return timed_on_screen(command, text, env, seconds)[0]


def timed_on_screen(command: list[str], text: bytes, env: dict[str, str] | None = None,
                    seconds: float = 120) -> tuple[float, float]:
    """Wall seconds to `text` drawn, and the CPU seconds the process spent until it was ended."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _on_screen(command, text, env or {}, seconds)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _on_screen(command: list[str], text: bytes, env: dict[str, str], seconds: float) -> float:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, cwd=REPO,
                               env={**os.environ, **env, "TERM": "xterm-256color"}, start_new_session=True)
    os.close(follower)
    drawn = b""
    try:
        while time.monotonic() - started < seconds:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    drawn += os.read(leader, 65536)
                except OSError:
                    break
                if text in drawn:
                    return time.monotonic() - started
        raise SystemExit(f"{text!r} never appeared from {' '.join(command[2:])}")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(leader)


def _line(name: str, timings: list[tuple[float, float]]) -> str:
    walls = [wall for wall, _ in timings]
    return (f"{name:<44} {statistics.median(walls):5.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}), "
            f"{statistics.median(cpu for _, cpu in timings):.2f} s CPU")


def main(runs: int) -> None:
    from dashboard_kit import store_fixture
    from test_unix_tool import store_with_sessions

    figures: dict[str, list[tuple[float, float]]] = {"goalbot --help": [help_once() for _ in range(runs)]}
    with tempfile.TemporaryDirectory() as tmp:
        db, many, long = Path(tmp) / "sessions.db", Path(tmp) / "many.db", Path(tmp) / "long.db"
        store_fixture(db, "demo")
        store_with_sessions(many, count=1000, events_each=1)
        store_with_sessions(long, count=1, events_each=2000)
        figures["goalbot (bare) → its first frame"] = [
            timed_on_screen([*GOALBOT, "--db", str(db)], b"Type a goal") for _ in range(runs)]
        figures["goalbot sessions → its first frame"] = [
            timed_on_screen([*GOALBOT, "--db", str(db), "sessions"], b"status: all") for _ in range(runs)]
        figures["goalbot sessions, 1,000 stored → table filled"] = [
            timed_on_screen([*GOALBOT, "--db", str(many), "sessions"], b"shown") for _ in range(runs)]
        figures["goalbot replay, 2,000 events → first events"] = [
            timed_on_screen([*GOALBOT, "--db", str(long), "replay", "s000"], b"TASK_START") for _ in range(runs)]
        figures["goalbot demo → the plan to approve"] = [
            timed_on_screen([*GOALBOT, "demo"], b"The plan waits for your approval",
                            {"GOALBOT_DB": str(Path(tmp) / f"demo-{n}.db")}) for n in range(runs)]
    for name, timings in figures.items():
        print(_line(name, timings))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    main(parser.parse_args().runs)

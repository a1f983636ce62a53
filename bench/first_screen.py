"""What a newcomer waits for: `goalbot --help`, the dashboard's first frame, and the demo's plan.

    python bench/first_screen.py [--runs 5]

Each figure is a fresh process in a real pseudo-terminal (160×45, xterm-256color), timed from
spawning it: `goalbot --help` to its exit (wall and CPU); `goalbot sessions` to its first frame
on the terminal (the status filter drawn); `goalbot demo` to its plan waiting for approval on the
screen. Medians; nothing here asserts.
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


def main(runs: int) -> None:
    from dashboard_kit import store_fixture

    helps = [help_once() for _ in range(runs)]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sessions.db"
        store_fixture(db, "demo")
        frames = [until_on_screen([*GOALBOT, "--db", str(db), "sessions"], b"status: all", {})
                  for _ in range(runs)]
        plans = [until_on_screen([*GOALBOT, "demo"], b"The plan waits for your approval",
                                 {"GOALBOT_DB": str(Path(tmp) / f"demo-{n}.db")}) for n in range(runs)]
    print(f"goalbot --help                       {statistics.median(h[0] for h in helps):5.2f} s wall, "
          f"{statistics.median(h[1] for h in helps):.2f} s CPU")
    print(f"goalbot sessions → its first frame   {statistics.median(frames):5.2f} s "
          f"(min {min(frames):.2f}, max {max(frames):.2f})")
    print(f"goalbot demo → the plan to approve   {statistics.median(plans):5.2f} s "
          f"(min {min(plans):.2f}, max {max(plans):.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    main(parser.parse_args().runs)

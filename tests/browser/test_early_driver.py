"""The Playwright driver spawned before a run loads: the run's browser starts on that very driver
(no second Node process), and a driver nobody takes — a refused run, a command that turned out
not to need one — is stopped, in process and when `goalbot run` is refused. Real Node, real
Chromium."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from kit import run_cli

from goalbot.cli.warm_start import named_command
from goalbot.operators.browser import early
from goalbot.operators.browser.options import BrowserOptions
from goalbot.operators.browser.operator import BrowserOperator


def drivers_of(pid: int) -> set[int]:
    """The Playwright drivers (Node, `run-driver`) this process started."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"run-driver" in (entry / "cmdline").read_bytes():
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent == pid:
                    found.add(int(entry.name))
        except (OSError, ValueError):
            continue  # gone while read
    return found


def drivers_marked(mark: str) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark.encode() in (entry / "environ").read_bytes():
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def until(condition, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_run_starts_its_browser_on_the_driver_spawned_before_it(hardsite, chromium: None) -> None:
    early.spawn_driver()
    spawned = drivers_of(os.getpid())
    assert len(spawned) == 1
    operator = BrowserOperator(BrowserOptions(headless=True))

    async def visit() -> str:
        await operator.start(hardsite.page("home"))
        try:
            assert drivers_of(os.getpid()) == spawned  # the same Node process, no second one
            assert await early.take_driver() is None  # given once
            return operator.page.url
        finally:
            await operator.close()

    with early.run_loop() as runner:
        assert "home" in runner.run(visit())
    assert until(lambda: not drivers_of(os.getpid()))


def test_a_driver_nobody_took_is_stopped(chromium: None) -> None:
    early.spawn_driver()
    assert drivers_of(os.getpid())
    early.discard_driver()
    assert until(lambda: not drivers_of(os.getpid()))
    with early.run_loop() as runner:  # nothing early left: a loop of its own, and no driver to take
        assert runner.run(early.take_driver()) is None


def test_a_refused_run_leaves_no_driver_behind(tmp_path: Path, chromium: None) -> None:
    mark = f"GOALBOT_TEST_MARK={uuid.uuid4().hex}"
    name, value = mark.split("=")
    result = run_cli("--db", str(tmp_path / "g.db"), "run", "sign in with the password Tr0ub4dor&3",
                     "--url", "http://127.0.0.1:9/", "--no-tui", "--yes", env={name: value})
    assert result.returncode == 2 and "secret" in result.stderr and "Traceback" not in result.stderr
    assert until(lambda: not drivers_marked(mark))


def test_the_command_word_is_found_past_the_global_flags() -> None:
    assert named_command(["--db", "run", "run", "a goal"]) == "run"
    assert named_command(["--images=off", "rerun", "x"]) == "rerun"
    assert named_command(["--version"]) is None
    assert named_command(["tail", "-n", "5"]) == "tail"

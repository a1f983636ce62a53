"""What the dashboard does for the terminal it is in: colours as deep as the terminal has, the
command palette, and a burst of events absorbed while the keys still answer."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kit import REPO
from dashboard_kit import on_top, store_fixture, until
from goalbot.events import Actor, Bus, Emitter, EventType as T, new_session_id
from tmux_kit import tmux, wait_for
from tui.app import GoalbotApp
from tui.sources import BusSource

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def _colour_kinds(screen: str) -> set[str]:
    """Which colour encodings the escape sequences use: 16, 256 or truecolor."""
    kinds: set[str] = set()
    for params in SGR.findall(screen):
        codes = params.split(";")
        for i, code in enumerate(codes):
            if code in ("38", "48") and i + 1 < len(codes):
                kinds.add({"5": "256", "2": "truecolor"}.get(codes[i + 1], "?"))
            elif code.isdigit() and (30 <= int(code) <= 37 or 40 <= int(code) <= 47 or 90 <= int(code) <= 107):
                kinds.add("16")
    return kinds


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("env, wanted, unwanted", [
    ({"TERM": "xterm"}, "16", {"256", "truecolor"}),
    ({"TERM": "xterm-256color"}, "256", {"truecolor"}),
    ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "truecolor", set()),
])
def test_colours_follow_the_terminal(db_path: Path, env: dict[str, str], wanted: str, unwanted: set[str]) -> None:
    session_id = store_fixture(db_path, "demo")
    session = f"goalbot-colours-{os.getpid()}-{wanted}"
    # tmux sets TERM for its panes: the command sets its own; tmux keeps any colour it is given
    variables = " ".join(f"{name}={value}" for name, value in env.items())
    command = (f"env -u COLORTERM -u NO_COLOR {variables} XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']} "
               f"{sys.executable} -m goalbot --db {db_path} replay {session_id}; sleep 30")
    tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "40", "-c", str(REPO), command)
    try:
        wait_for(session, "❚❚")  # paused where the story starts
        tmux("send-keys", "-t", session, "End")  # to the end of the story, where the badge says ok
        wait_for(session, " ok  ")
        screen = tmux("capture-pane", "-p", "-e", "-t", session)
        kinds = _colour_kinds(screen)
        assert wanted in kinds and not kinds & unwanted, kinds
        tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


async def test_the_command_palette_opens_the_sessions(db_path: Path) -> None:
    store_fixture(db_path, "demo")
    app = GoalbotApp(db_path=db_path)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: on_top(app, "CommandPalette"), "the palette")
        await pilot.press(*"sessions")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await until(pilot, lambda: on_top(app, "SessionsScreen") and len(app.screen.rows) == 1, "the session listed")


async def test_a_burst_of_events_is_absorbed_and_the_keys_still_answer() -> None:
    bus = Bus()
    emitter = Emitter(bus, new_session_id())
    app = GoalbotApp()
    steps = 1_000

    def burst() -> None:
        emitter.emit(T.TASK_START, Actor.SYSTEM, None, goal="a long session", model="m", base_url="u", max_steps=steps)
        for step in range(1, steps + 1):
            emitter.emit(T.STEP_START, Actor.NAVIGATOR, step, index=step, description=f"step {step}")
            for n in range(3):
                emitter.emit(T.ACT_OK, Actor.NAVIGATOR, step, action={"name": "click", "index": n}, message="ok")
            emitter.emit(T.GOAL_STATUS, Actor.VALIDATOR, step, progress_percent=step * 100 // steps,
                         confidence=0.5)
            emitter.emit(T.STEP_OK, Actor.NAVIGATOR, step, index=step, description=f"step {step}")

    async with app.run_test(size=(150, 40)) as pilot:
        app.run_screen.follow(BusSource(bus), None)
        publisher = threading.Thread(target=burst)
        publisher.start()
        await until(pilot, lambda: not publisher.is_alive(), "the burst to be published")
        log = app.run_screen.query_one("#log")
        await until(pilot, lambda: log.line_count == 1 + steps * 5, "every event in the log")
        state = app.run_screen.board.state
        assert state.step == steps and state.progress == 100
        assert [s.state.value for s in state.plan].count("ok") == steps
        assert f"… {steps - 60} earlier steps" in str(app.run_screen.query_one("#plan").render())
        await pilot.press("m")  # still answering keys
        assert app.run_screen.board.with_marks

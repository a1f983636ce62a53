"""The desktop operator on a real X display (Xvfb) against a Tk application of the tests' own
that records every click and key: scripted answers in each dialect aim at its widgets, and the
application's own record says where each click and each typed text landed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from kit import REPO, answer, call, finished, plan, run_cli, stored_events, stored_session, verdict, xvfb, wait_until

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")

WIDTH, HEIGHT = 1280, 800


class TkApp:
    def __init__(self, log: Path) -> None:
        self.log = log

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def centre(self, widget: str) -> tuple[int, int]:
        x, y, w, h = self.records()[0]["widgets"][widget]
        return x + w // 2, y + h // 2

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records() if r["event"] == kind]


@pytest.fixture
def display() -> Iterator[str]:
    with xvfb(f"{WIDTH}x{HEIGHT}x24") as name:
        yield name


@pytest.fixture
def app(display: str, tmp_path: Path) -> Iterator[TkApp]:
    log = tmp_path / "app.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "desktop.app", str(log)], cwd=REPO / "tests",
                               env={**os.environ, "DISPLAY": display})
    wait_until(lambda: log.exists() and '"ready"' in log.read_text(), 30, "the Tk application starting")
    yield TkApp(log)
    process.terminate()
    process.wait(10)


def _run(db_path: Path, model, display: str, goal: str, *flags: str):
    result = run_cli("--db", str(db_path), "run", goal, "--operator", "desktop", "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted", "--min-interval", "0", *flags,
                     env={"DISPLAY": display})
    assert "Traceback" not in result.stderr, result.stderr
    assert "Xlib" not in result.stdout  # stdout carries events and the answer, nothing else
    return result, stored_events(db_path)


def test_tool_calls_click_and_type_unicode_into_the_right_widgets(app: TkApp, display, model_server, db_path) -> None:
    name_x, name_y = app.centre("name")
    ok_x, ok_y = app.centre("ok")
    text = "Kimchi 김치찌개 ✓"
    script = {
        "planner": [plan("Type the name and press OK")],
        "navigator": [answer(call("click", x=name_x, y=name_y), call("type", text=text)),
                      answer(call("click", x=ok_x, y=ok_y)), finished(summary="typed and pressed OK")],
        "validator": [verdict(True, "Done shows"), verdict(True, "done")],
    }
    model = model_server(script)
    result, events = _run(db_path, model, display, "type the name and press OK")
    assert result.returncode == 0, result.stderr
    assert [c["widget"] for c in app.events("click")] == ["name", "ok"]
    assert app.events("text")[-1]["value"] == text
    assert app.events("pressed") == [{"event": "pressed", "widget": "ok"}]
    shots = [e for e in events if e["type"] == "OBSERVATION"]
    assert shots[0]["url"] == "screen:1" and shots[0]["screenshot"]
    sent = model.requests[1]["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in sent)  # vision only: the model sees the screen


def test_uitars_relative_boxes_double_right_click_scroll_and_drag(app: TkApp, display, model_server, db_path) -> None:
    def rel(x: int, y: int) -> str:
        return f"({round(x / WIDTH * 1000)},{round(y / HEIGHT * 1000)})"

    name, canvas = app.centre("name"), app.centre("canvas")
    drag_to = (canvas[0] + 120, canvas[1])
    script = {
        "planner": [plan("Work the widgets")],
        "navigator": [
            {"content": f"Thought: open the field\nAction: left_double(start_box='{rel(*name)}')"},
            {"content": f"Thought: the canvas menu\nAction: right_single(start_box='{rel(*canvas)}')"},
            {"content": f"Thought: scroll it\nAction: scroll(start_box='{rel(*canvas)}', direction='down')"},
            {"content": f"Thought: drag\nAction: drag(start_box='{rel(*canvas)}', end_box='{rel(*drag_to)}')"},
            {"content": "Thought: done\nAction: finished(content='worked every widget')"},
        ],
        "validator": [verdict(True, "all done"), verdict(True, "all done")],
    }
    result, _ = _run(db_path, model_server(script), display, "work the widgets", "--dialect", "navigator=uitars")
    assert result.returncode == 0, result.stderr
    assert [d["widget"] for d in app.events("double")] == ["name"]
    assert [r["widget"] for r in app.events("right")] == ["canvas"]
    assert app.events("scroll") and all(s["widget"] == "canvas" for s in app.events("scroll"))
    drags = [d for d in app.events("drag") if d["dx"]]
    assert drags and abs(drags[0]["dx"] - 120) <= 3 and abs(drags[0]["dy"]) <= 3


def test_json_text_keys_and_hotkeys_reach_the_focused_field(app: TkApp, display, model_server, db_path) -> None:
    x, y = app.centre("name")
    actions = [{"action": "click", "x": x, "y": y}, {"action": "type", "text": "abc"},
               {"action": "hotkey", "keys": ["shift", "Home"]}]
    # Selecting the text changes the screen, so the batch ends there and the erase comes next.
    erase = [{"action": "key", "key": "BackSpace"}]
    done = [{"action": "finished", "success": True, "summary": "erased"}]
    script = {
        "planner": [plan("Type and erase")],
        "navigator": [{"content": json.dumps(actions)}, {"content": json.dumps(erase)}, {"content": json.dumps(done)}],
        "validator": [verdict(True, "empty again"), verdict(True, "done")],
    }
    result, _ = _run(db_path, model_server(script), display, "type and erase", "--dialect", "json")
    assert result.returncode == 0, result.stderr
    keys = [k["keysym"] for k in app.events("key") if k["widget"] == "name"]
    assert keys[:3] == ["a", "b", "c"] and "Home" in keys and "BackSpace" in keys
    assert app.events("text")[-1]["value"] == ""


def test_a_click_that_changes_nothing_is_said_so_and_the_third_is_refused(app: TkApp, display, model_server, db_path) -> None:
    empty = (WIDTH - 40, HEIGHT - 40)  # the bare root window: nothing there reacts
    script = {
        "planner": [plan("Click the corner")],
        "navigator": [answer(call("click", x=empty[0], y=empty[1]))] * 3 + [finished(False, "nothing there")],
    }
    result, events = _run(db_path, model_server(script), display, "click the corner", "--max-steps", "1",
                          "--grid")
    fails = [e for e in events if e["type"] == "ACT_FAIL"]
    assert [f["error"] for f in fails] == ["NoEffect", "NoEffect", "Refused"]
    assert "nothing changed on the screen" in fails[0]["message"]
    assert any(e["type"] == "POLICY" and e["policy"] == "repeat_click" for e in events)
    # --grid: what the model saw carries a labelled line every 100 px.
    from io import BytesIO

    from PIL import Image

    from kit import rows
    shot = Image.open(BytesIO(rows(db_path, "select content from artifacts limit 1")[0]["content"]))
    r, g, b = shot.convert("RGB").getpixel((300, 750))
    assert r - g > 60 and b - g > 60  # magenta, through JPEG's blur
    assert shot.convert("RGB").getpixel((350, 750)) != (r, g, b)


def test_no_display_is_one_line_with_the_way_out(db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "click OK", "--operator", "desktop", "--no-tui", "--yes")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "Xvfb" in result.stderr and "DISPLAY" in result.stderr


def test_the_fail_safe_corner_stops_the_run(app: TkApp, display, model_server, db_path) -> None:
    x, y = app.centre("ok")
    script = {"planner": [plan("Press OK")],
              "navigator": [answer(call("hover", x=0, y=0), call("click", x=x, y=y))]}
    result, events = _run(db_path, model_server(script), display, "press OK")
    assert result.returncode == 1
    assert events[-1]["type"] == "TASK_FAIL" and "fail-safe" in events[-1]["reason"]
    assert app.events("pressed") == []


def test_typing_a_secret_on_the_desktop_needs_a_go(app: TkApp, display, model_server, db_path) -> None:
    x, y = app.centre("name")
    script = {"planner": [plan("Type the PIN")],
              "navigator": [answer(call("click", x=x, y=y)), answer(call("type", text="<secret:PIN>"))]}
    # Not four digits alone: a store's timestamps carry microseconds, and one may hold any four.
    result, events = _run(db_path, model_server(script), display, "type the PIN", "--secret", "PIN=8642-pin-7319")
    assert result.returncode == 1
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "secret_on_new_site" and request["where"] == "screen:1"
    assert events[-1]["type"] == "TASK_CANCEL"
    assert app.events("text") == []  # nothing was typed
    assert b"8642-pin-7319" not in db_path.read_bytes()


def test_ctrl_c_stops_a_desktop_run_at_once(app: TkApp, display, model_server, db_path) -> None:
    import signal

    from kit import rows

    script = {"planner": [plan("Wait for the report")], "navigator": [answer(call("wait", seconds=60))]}
    model = model_server(script)
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "wait", "--operator", "desktop",
         "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DISPLAY": display},
    )
    wait_until(lambda: rows(db_path, "select 1 from events where type = 'ACT_START'"), 60, "the wait starting")
    run.send_signal(signal.SIGINT)
    # The wait asked for 60 s: a run that ends well inside this deadline was stopped, not finished.
    _, stderr = run.communicate(timeout=45)
    assert run.returncode == 1 and "Traceback" not in stderr
    assert "stopped by the person" in stderr
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"


async def test_a_monitor_away_from_the_origin_gets_its_offset(app: TkApp, display, model_server, db_path, monkeypatch) -> None:
    """A second monitor starts where the first ends: the model points on that monitor's own
    screenshot, and the click must land at the monitor's offset plus the point."""
    from goalbot.agents.session import RunOptions, Status
    from goalbot.operators.desktop import DesktopOperator
    from goalbot.operators.desktop_screen import Monitor, Screen

    monkeypatch.setenv("DISPLAY", display)
    left, top = 300, 50
    # Xvfb has one monitor; this carves a second one out of it, as a side-by-side layout would place it.
    original = Screen.__init__

    def second_monitor(self: Screen, number: int = 1) -> None:
        original(self, 1)
        self.monitor = Monitor(number=2, left=left, top=top, width=640, height=500)

    monkeypatch.setattr(Screen, "__init__", second_monitor)
    ok_x, ok_y = app.centre("ok")
    model = model_server({
        "planner": [plan("Press OK")],
        "navigator": [answer(call("click", x=ok_x - left, y=ok_y - top)), finished()],
        "validator": [verdict(True, "Done"), verdict(True, "Done")],
    })
    session, recorder = stored_session(db_path, RunOptions(goal="press OK", vision=True),
                                       DesktopOperator(monitor=2), model)
    try:
        result = await session.run()
    finally:
        recorder.close()
    assert result.status is Status.OK, result.reason
    assert app.events("pressed") == [{"event": "pressed", "widget": "ok"}]
    assert stored_events(db_path)[1]["title"] == "Monitor 2, 640×500 at (300, 50)"


needs_ocr = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract reads the screen's words")


@needs_ocr
def test_a_click_on_delete_waits_for_a_go_read_off_the_screen(app: TkApp, display, model_server, db_path) -> None:
    x, y = app.centre("delete")
    script = {"planner": [plan("Clear the canvas")], "navigator": [answer(call("click", x=x, y=y))]}
    result, events = _run(db_path, model_server(script), display, "clear the canvas")
    assert result.returncode == 1
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "delete" and "Delete" in request["what"] and request["screenshot"]
    assert events[-1]["type"] == "TASK_CANCEL"
    assert app.events("pressed") == [] and app.events("click") == []  # never clicked


@needs_ocr
def test_typing_into_a_password_field_needs_a_go_and_stays_hidden(app: TkApp, display, model_server, db_path) -> None:
    x, y = app.centre("password")
    typed = "hunter2-on-screen"
    script = {"planner": [plan("Fill in the password")],
              "navigator": [answer(call("click", x=x, y=y)), answer(call("type", text=typed)), finished()],
              "validator": [verdict(True, "filled"), verdict(True, "filled")]}
    refused, events = _run(db_path, model_server(script), display, "fill in the password")
    request = next(e for e in events if e["type"] == "APPROVAL_REQUEST")
    assert request["kind"] == "secret_field" and "Password" in request["what"]
    assert refused.returncode == 1 and [t for t in app.events("text") if t["widget"] == "password"] == []

    allowed, _ = _run(db_path, model_server(script), display, "fill in the password", "--allow-risky")
    assert allowed.returncode == 0, allowed.stderr
    assert app.events("text")[-1] == {"event": "text", "widget": "password", "value": typed}
    shown = [e["action"]["text"] for e in stored_events(db_path) if e["type"] == "ACT_START"
             and e["action"]["name"] == "type"]
    assert shown == ["•••"]
    assert typed.encode() not in db_path.read_bytes() and typed not in allowed.stdout

"""Sixel in a terminal that has it: xterm as a VT340 on Xvfb answers the dashboard's question, and
the screenshot goes out as sixel; `--images halfcell` draws it with blocks instead."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import mss
import pytest
from PIL import Image, ImageChops

from kit import demo_script, rows, run_goal, wait_until, xvfb
from dashboard_kit import GOAL
from goalbot.demo.site import DemoSite

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("xterm", "Xvfb", "script", "xdotool")),
    reason="xterm, Xvfb, script or xdotool missing")


def _output_in_xterm(display: str, command: str, typescript: Path, until: bytes, seconds: float = 40) -> bytes:
    """Runs `command` in xterm -ti vt340 and returns what it wrote to the terminal, once `until` shows."""
    terminal = subprocess.Popen(
        ["xterm", "-ti", "vt340", "-geometry", "150x45", "-e", f"script -q -c '{command}' {typescript}"],
        env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            written = typescript.read_bytes() if typescript.exists() else b""
            if until in written:
                time.sleep(0.5)
                return typescript.read_bytes()
            time.sleep(0.2)
        raise AssertionError(f"{until!r} never came; the terminal got {len(written)} bytes")
    finally:
        terminal.terminate()
        terminal.wait(10)
        # `script` outlives the xterm it ran in, and keeps the dashboard's terminal open
        subprocess.run(["pkill", "-f", str(typescript)], check=False)


def test_replay_draws_sixel_in_a_vt340_and_blocks_on_request(site, model_server, db_path: Path, tmp_path: Path) -> None:
    run_goal(db_path, model_server(demo_script()), f"{site.url}/login", GOAL)
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    goalbot = f"{sys.executable} -m goalbot"
    with xvfb("1600x1000x24") as display:
        sixel = _output_in_xterm(display, f"{goalbot} --db {db_path} replay {session_id}",
                                 tmp_path / "sixel.out", until=b"\x1bP0;0;0q")
        assert b"#" in sixel.split(b"\x1bP0;0;0q", 1)[1][:200]  # colour registers: a picture follows
        blocks = _output_in_xterm(display, f"{goalbot} --db {db_path} --images halfcell replay {session_id}",
                                  tmp_path / "halfcell.out", until="▀".encode())
        assert b"\x1bP0;0;0q" not in blocks


def keys(display: str, *names: str) -> None:
    """Keys typed into the terminal window on `display`."""
    environment = {**os.environ, "DISPLAY": display}
    window = subprocess.run(["xdotool", "search", "--class", "xterm"], env=environment, capture_output=True,
                            text=True, check=True).stdout.split()[0]
    subprocess.run(["xdotool", "key", "--window", window, *names], env=environment, check=True)


def _page_region(grab: Image.Image, colour: tuple[int, int, int]) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels drawn in `colour` (within 3 of each channel): the page's
    background, which surrounds everything else on the stored screenshot."""
    red, green, blue = ImageChops.difference(grab, Image.new("RGB", grab.size, colour)).split()
    mask = ImageChops.lighter(red, ImageChops.lighter(green, blue)).point(lambda d: 255 if d <= 3 else 0)
    return mask.getbbox()


def test_a_sixel_picture_shows_the_colours_it_was_stored_with(chromium: None, model_server, db_path: Path,
                                                               tmp_path: Path) -> None:
    """A VT340 drew the first rows of every picture in another colour of the picture (a band over
    its top sixth): the picture on the screen has the stored screenshot's proportions in its own
    background colour."""
    with DemoSite() as site:  # its own: what earlier tests left on a shared one must not change the pictures
        result, _ = run_goal(db_path, model_server(demo_script()), f"{site.url}/login", GOAL, "--replay-pictures")
    assert result.returncode == 0, result.stderr
    session_id = rows(db_path, "select id from sessions")[0]["id"]
    first = rows(db_path, "select content from artifacts where kind = 'screenshot' order by rowid")[0]["content"]
    stored = Image.open(io.BytesIO(first)).convert("RGB")
    background = stored.getpixel((2, 2))
    with xvfb("1600x1000x24") as display:
        terminal = subprocess.Popen(
            ["xterm", "-ti", "vt340", "-geometry", "150x45+0+0", "-xrm", "XTerm*allowSendEvents: true", "-e",
             f"{sys.executable} -m goalbot --db {db_path} replay {session_id}"],
            env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            grabber = mss.MSS if hasattr(mss, "MSS") else mss.mss  # mss 10 renamed it
            with grabber(display=display) as screen:
                def picture() -> tuple[int, int, int, int] | None:
                    shot = screen.grab({"left": 0, "top": 0, "width": 1000, "height": 700})
                    return _page_region(Image.frombytes("RGB", shot.size, shot.rgb), background)

                drawn: list[tuple[int, int, int, int] | None] = [None]

                def steady() -> bool:  # the same picture on two grabs in a row: drawn, not drawing
                    box, drawn[0] = drawn[0], picture()
                    return box is not None and box == drawn[0] and box[2] - box[0] > 100

                wait_until(steady, 120, "the picture on the screen")  # a loaded machine draws slowly
                box = drawn[0]
                assert box is not None
                width, height = box[2] - box[0], box[3] - box[1]
                assert abs(height / width - stored.height / stored.width) < 0.03, (box, stored.size)

                # A dialog over the picture, then gone: the picture is whole again, not a dialog's remains.
                keys(display, "Return")
                wait_until(lambda: picture() != box, 30, "the event's dialog over the picture")
                keys(display, "Escape")
                wait_until(lambda: picture() == box, 30, "the picture whole again once the dialog is gone")
        finally:
            terminal.terminate()
            terminal.wait(10)

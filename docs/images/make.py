"""Makes the manual's pictures from real runs, in a real terminal: the demo is run with its screens
kept (`--replay-pictures`), then replayed in xterm as a VT340 under Xvfb, so the screen panel is
drawn in real sixel, and the display is photographed. Run it from the repository's root after the
dashboard changes (it needs xterm, Xvfb and xdotool, which `make tools` installs):

    .venv/bin/python docs/images/make.py

It writes docs/images/dashboard.png (the README's picture) and docs/images/report/ (the screen a
run stopped on at its GO, as `goalbot report --pictures` writes it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(REPO / "tests"), str(REPO)]

from PIL import Image  # noqa: E402

from goalbot.demo.site import DemoSite  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import answer, call, element, finished, plan, verdict  # noqa: E402

GOALBOT = [sys.executable, "-m", "goalbot"]
SETTLE_S = 10  # the replay opens and draws its first picture; then End, and the last one


def _goalbot(db: Path, *args: str) -> str:
    done = subprocess.run([*GOALBOT, "--db", str(db), *args], cwd=REPO, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)
    return done.stdout + done.stderr


def _latest(db: Path) -> str:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return str(conn.execute("select id from sessions order by started_at desc limit 1").fetchone()[0])


def dashboard(db: Path, out: Path) -> None:
    with DemoSite() as site, ScriptedModelServer(Script.demo()) as model:
        _goalbot(db, "run", "sign in and turn on dark mode", "--url", f"{site.url}/login", "--no-tui", "--yes",
                 "--base-url", model.base_url, "--model", "scripted-demo", "--replay-pictures")
    session = _latest(db)
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1500x900x24", "-nolisten", "tcp"],
                            pass_fds=[write])
    display = ":" + os.read(read, 16).decode().strip()
    env = {**os.environ, "DISPLAY": display, "GOALBOT_DB": str(db)}
    term = subprocess.Popen(["xterm", "-ti", "vt340", "-fa", "DejaVu Sans Mono", "-fs", "9", "-geometry", "150x44+0+0",
                             "-xrm", "XTerm*numColorRegisters: 256", "-e", *GOALBOT, "replay", session],
                            env=env, cwd=REPO)
    try:
        time.sleep(SETTLE_S)
        subprocess.run(["xdotool", "key", "End"], env=env, check=True)  # the replay's last event: the run's end
        time.sleep(SETTLE_S / 2)
        import mss

        with mss.MSS(display=display) as grab:
            shot = grab.grab(grab.monitors[1])
        picture = Image.frombytes("RGB", shot.size, shot.rgb)
        bounds = picture.getbbox()  # the terminal's window, without the empty display around it
        (picture.crop(bounds) if bounds else picture).save(out, optimize=True)
    finally:
        term.terminate()
        xvfb.terminate()


def report(db: Path, folder: Path) -> None:
    script = {"planner": [plan("Buy the order")] * 2, "navigator": [answer(call("click", index=element("Buy now"))),
                                                                    finished()],
              "validator": [verdict(False, "not bought")] * 2}
    with HardSite() as site, ScriptedModelServer(Script(script)) as model:
        _goalbot(db, "run", "buy the order", "--url", site.page("checkout"), "--no-tui", "--yes",
                 "--max-failures", "1", "--base-url", model.base_url, "--model", "scripted")
    written = db.parent / "report"
    print(_goalbot(db, "report", _latest(db), "--pictures", str(written)).strip())
    folder.mkdir(exist_ok=True)
    for picture in written.glob("*.jpg"):  # the pictures only: the manual's page says the rest
        (folder / picture.name).write_bytes(picture.read_bytes())
        print(f"wrote {folder / picture.name}")


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        dashboard(Path(work) / "demo.db", HERE / "dashboard.png")
        print(f"wrote {HERE / 'dashboard.png'}")
        report(Path(work) / "purchase.db", HERE / "report")


if __name__ == "__main__":
    main()

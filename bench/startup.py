"""How long `goalbot run` takes to reach the page, and to leave once the run has ended.

    python bench/startup.py [--runs 5]

Each run is a fresh `goalbot run … --no-tui --yes` process on the demo goal, its model the
scripted server answering at once. Start-up is from spawning the process to the site's first
request; leaving is from the line that says how the session ended to the process's exit. Medians;
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from goalbot.demo.site import DemoSite  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402


class FirstRequest:
    """A witness in front of the demo site: it notes when the first request arrives and
    redirects every request to the site itself."""

    def __init__(self, target: str) -> None:
        self.at: float | None = None
        witness = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                if witness.at is None:
                    witness.at = time.monotonic()
                self.send_response(302)
                self.send_header("Location", target + self.path)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def one_run(db: Path, site: DemoSite, model: str) -> tuple[float, float]:
    witness = FirstRequest(site.url)
    script = files("goalbot.demo").joinpath("script.json").read_text(encoding="utf-8")
    with ScriptedModelServer(Script(json.loads(script))) as server:
        command = [sys.executable, "-m", "goalbot", "--db", str(db), "run", "log in and turn on dark mode",
                   "--url", f"{witness.url}/login", "--no-tui", "--yes", "--min-interval", "0",
                   "--base-url", server.base_url, "--model", model]
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   env=os.environ.copy())
        ended_at = None
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("goalbot: session ") and ended_at is None:
                ended_at = time.monotonic()
        process.wait()
        left = time.monotonic()
    witness.server.shutdown()
    if witness.at is None or ended_at is None:
        raise SystemExit(f"the run did not reach the page or did not end (exit {process.returncode})")
    return witness.at - started, left - ended_at


def main(runs: int) -> None:
    with DemoSite() as site, tempfile.TemporaryDirectory() as tmp:
        figures = [one_run(Path(tmp) / f"{n}.db", site, "scripted") for n in range(runs)]
    starts, leaves = [f[0] for f in figures], [f[1] for f in figures]
    print(f"goalbot run → the site's first request   {statistics.median(starts):5.2f} s "
          f"(min {min(starts):.2f}, max {max(starts):.2f})")
    print(f"the session's last line → process exit   {statistics.median(leaves):5.2f} s "
          f"(min {min(leaves):.2f}, max {max(leaves):.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    main(parser.parse_args().runs)

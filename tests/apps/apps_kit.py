"""What the real-application tests share: the applications' own Python (`make apps` installs them
into .venv-apps), a free loopback port, and a served application that is started, waited for and
stopped by the test that needs it.

Each application is judged from its own state (its database, its files, its API), never from
the page goalbot saw."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Mapping, Sequence

import pytest

from kit import REPO

APPS_VENV = REPO / ".venv-apps"
APPS_BIN = APPS_VENV / "bin"


def app_python() -> Path:
    """The Python the applications are installed in; the test is skipped, with the command that
    installs them, where they are not."""
    python = APPS_BIN / "python"
    if not (APPS_VENV / ".built").exists() or not python.exists():
        pytest.skip("the real applications are not installed: run `make apps` (make test does)")
    return python


def app_command(name: str) -> Path:
    """An application's own command in .venv-apps/bin (trac-admin, datasette, jupyter-lab…)."""
    app_python()
    return APPS_BIN / name


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """One application process on 127.0.0.1: started in its own process group (so its children
    go with it), ready once `ready_url` answers below 500, stopped when the test is over. Its
    output goes to `log`, which a failure shows."""

    def __init__(self, command: Sequence[str | os.PathLike[str]], ready_url: str, log: Path, *,
                 cwd: Path | None = None, env: Mapping[str, str] | None = None, seconds: float = 120) -> None:
        self.command = [str(part) for part in command]
        self.ready_url = ready_url
        self.log = log
        self.cwd = cwd
        self.env = {**os.environ, **(env or {})}
        self.seconds = seconds
        self.process: subprocess.Popen[bytes] | None = None
        self.started_in: float | None = None

    def __enter__(self) -> "Served":
        began = time.monotonic()
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            cwd=self.cwd, env=self.env, start_new_session=True)
        deadline = began + self.seconds
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.command[0]} exited with {self.process.returncode}:\n{self.output()}")
            if self._answers():
                break
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"{self.ready_url} did not answer within {self.seconds:g} s:\n{self.output()}")
            time.sleep(0.2)
        self.started_in = time.monotonic() - began
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.ready_url, timeout=5) as response:
                return int(response.status) < 500
        except urllib.error.HTTPError as error:
            return error.code < 500
        except (OSError, ValueError):
            return False

    def output(self, last: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-last:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(15)
        except ProcessLookupError:
            pass


def read_off_page(pattern: str, kind: str | None = None) -> dict[str, str]:
    """A value the scripted model reads off the page it was sent (the regex's first group;
    `kind` "integer" or "number" makes it one): an extractor's answer is then the page's own,
    so a run that reached the wrong page answers wrongly, as a real model would."""
    return {"$read": pattern} if kind is None else {"$read": pattern, "as": kind}

"""The shell blocks of the README and the manual, as the tests that run them as written find them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kit import wait_until

# `before`: the one line above the fence (a marker comment, or not); the body may hold many.
SHELL_BLOCK = re.compile(r"^(?P<before>[^\n]*)\n```(?:sh|bash|shell|console)\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)
LEFT_BEHIND_ENDS = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
SET_UP = "<!-- set-up:"  # the README's `make demo` / `make test`: CI runs the one, test_make_demo.py the other
LOCAL_MODEL = "<!-- local-model:"  # needs `make local-model`'s server: tests/local_model runs these


def shell_blocks(page: Path, marked: str | None = None) -> list[str]:
    """The page's shell blocks; with `marked`, only those under that comment, else those under none."""
    text = page.read_text(encoding="utf-8")
    found = [(match["before"].rsplit("\n", 1)[-1], match["body"]) for match in SHELL_BLOCK.finditer(text)]
    if marked is not None:
        return [body for before, body in found if before.startswith(marked)]
    return [body for before, body in found if not before.startswith((SET_UP, LOCAL_MODEL))]


def block_env(home: Path) -> dict[str, str]:
    """A newcomer's shell: goalbot on the PATH, no terminal, and a home, config, data and store of
    the test's own under `home`."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
            "HOME": str(home / "home"), "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"), "GOALBOT_DB": str(home / "goalbot.db")}


@dataclass
class Ran:
    returncode: int
    out: str
    err: str

    def said(self, block: str, where: str) -> str:
        # A string, not a tuple: pytest shortens a tuple's repr, and the words that say why are at its end.
        return f"{where}, exit {self.returncode}:\n{block}\n--- stdout\n{self.out[-3000:]}\n--- stderr\n{self.err[-3000:]}"


def run_block(script: str, cwd: Path, env: dict[str, str], timeout: float) -> Ran:
    """`script` pasted whole into `bash -e`; whatever it left behind (a demo a failed block never
    killed, its shell gone or not) is gone when this returns, so its ports are free again. A block
    that fails part-way never reaches its `kill %1`: LEFT_BEHIND_ENDS's trap ends its demo, so the
    failure is reported with its words rather than as a shell whose pipes stay open."""
    shell = subprocess.Popen(["bash", "-e", "-c", LEFT_BEHIND_ENDS + script], cwd=cwd, env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        out, err = shell.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(shell.pid, signal.SIGKILL)
        shell.wait(60)  # the shell leads its group: reaped, so the group can be seen gone
        wait_until(lambda: _gone(shell.pid), 60, "the block's processes to end")
    return Ran(shell.returncode, out, err)


def _gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False

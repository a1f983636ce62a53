"""Every shell block of the README and the manual runs as written, pasted whole: each page's blocks
in order, in one shell each, with the demo for a site and a model. Only the demo's ports move (this
machine may have 8765 taken by another test); plain-text blocks are shapes to fill in, not run."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, free_port_pair, wait_until
from manual_kit import LEFT_BEHIND_ENDS, shell_blocks

PAGES = [page for page in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))] if shell_blocks(page)]


def _gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_pages_with_shell_blocks_are_found() -> None:
    names = {page.relative_to(REPO).as_posix() for page in PAGES}
    assert {"docs/guide/first-run.md", "docs/guide/recipes.md", "docs/guide/batches.md"} <= names, names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_shell_block_runs_as_written(page: Path, tmp_path: Path, chromium: None) -> None:
    port = free_port_pair()
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
           "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "GOALBOT_DB": str(tmp_path / "goalbot.db")}
    for block in shell_blocks(page):
        # A block that fails part-way (bash -e) never reaches its `kill %1`: the trap ends its demo,
        # so the failure is reported with its words rather than as a shell whose pipes stay open.
        script = LEFT_BEHIND_ENDS + (block.replace("8765", str(port)).replace("8766", str(port + 1))
                                     .replace("--serve-only", f"--serve-only --port {port}"))
        shell = subprocess.Popen(["bash", "-e", "-c", script], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = shell.communicate(timeout=600)
        finally:
            # What the block left behind (a demo a failed block never killed, its shell gone or not)
            # goes, and the ports are free again before the next block starts its own demo on them.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)
            shell.wait(60)  # the shell leads its group: reaped, so the group can be seen gone
            wait_until(lambda: _gone(shell.pid), 60, "the block's processes to end")
        # A string, not a tuple: pytest shortens a tuple's repr, and the words that say why are at its end.
        said = f"{page.name}, exit {shell.returncode}:\n{block}\n--- stdout\n{out[-3000:]}\n--- stderr\n{err[-3000:]}"
        assert shell.returncode == 0, said
        assert "Traceback" not in out + err, said

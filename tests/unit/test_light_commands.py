"""A command that opens no store loads none: `goalbot --help`, a command's help and the shell
completion start without sqlite_utils (and the numpy and pluggy it brings), the browser's driver
or the model client. A command that opens one loads sqlite_utils without numpy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from storage.db import connect

HEAVY = ("sqlite_utils", "numpy", "pluggy", "playwright", "openai", "textual")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["completion", "bash"]])
def test_a_light_command_imports_no_store(args: list[str]) -> None:
    found = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "goalbot", *args],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert found.returncode == 0, found.stderr[-500:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in found.stderr.splitlines() if "import time:" in line}
    assert imported, "python -X importtime printed nothing"
    assert not {name.split(".")[0] for name in imported} & set(HEAVY)


def test_a_command_that_opens_a_store_loads_sqlite_utils_without_numpy(tmp_path: Path) -> None:
    """numpy is a fifth of a second of every process that opens a store (a batch's slot, each
    `goalbot run`), and goalbot writes no numpy values."""
    db = tmp_path / "goalbot.db"
    connect(db).close()
    found = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "goalbot", "--db", str(db), "sessions"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert found.returncode == 0, found.stderr[-500:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in found.stderr.splitlines() if "import time:" in line}
    assert "sqlite_utils" in imported and "no sessions" in found.stdout.lower() + found.stderr.lower()
    assert "numpy" not in {name.split(".")[0] for name in imported}

"""A command that opens no store loads none: `goalbot --help`, a command's help and the shell
completion start without sqlite_utils (and the numpy and pluggy it brings), the browser's driver
or the model client."""

from __future__ import annotations

import subprocess
import sys

import pytest

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
    assert not [name for name in HEAVY if name in imported]

"""The local-model page of the manual, run as written: its install block is the Makefile's own
(`make local-model` built the server these tests use), and its run block starts the server, the
demo and a run against them in one shell, the ports moved only, as test_manual_blocks runs the rest."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from conftest import BUILT
from kit import REPO, free_port_pair, rows
from manual_kit import LOCAL_MODEL, block_env, run_block, shell_blocks

pytestmark = [pytest.mark.xdist_group("local_model"), pytest.mark.timeout(1500)]

PAGE = REPO / "docs" / "guide" / "your-model.md"


def _commands(text: str) -> list[str]:
    """Each command of a shell text, its continuation lines joined, comments and quiet flags gone."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = [re.sub(r"\s+#.*$", "", line).replace(" --quiet", "").strip() for line in joined.splitlines()]
    return [" ".join(line.split()) for line in lines if line and not line.startswith("#")]


def test_the_install_block_is_what_make_local_model_runs() -> None:
    [install] = shell_blocks(PAGE, LOCAL_MODEL + " install")
    recipe = (REPO / "Makefile").read_text(encoding="utf-8").split("$(LLAMA):\n", 1)[1].split("\n\n", 1)[0]
    made = [re.sub(r"^\$\(PYTHON\)", "python", command).replace("CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) ", "")
            for command in _commands(recipe.replace("\t", ""))]
    wanted = [command for command in made if not command.startswith(("rm ", "touch ")) and "upgrade pip" not in command]
    assert _commands(install) == wanted


def test_the_run_block_runs_as_written(tmp_path: Path) -> None:
    if not BUILT.exists():
        if os.environ.get("CI"):
            pytest.fail("no llama-cpp-python (make local-model): make test installs it in CI")
        pytest.skip("no llama-cpp-python (make local-model)")
    [block] = shell_blocks(PAGE, LOCAL_MODEL + " run")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv-llama").symlink_to(REPO / ".venv-llama")  # where the page's reader built it
    demo = free_port_pair()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        server = probe.getsockname()[1]
    script = (block.replace("8000", str(server)).replace("8765", str(demo))
              .replace("--serve-only", f"--serve-only --port {demo}"))
    ran = run_block(script, work, block_env(tmp_path), timeout=1200)
    said = ran.said(block, PAGE.name)
    assert ran.returncode == 0 and "Traceback" not in ran.out + ran.err, said
    assert "smollm2" in ran.out, said  # the doctor found the model under its alias
    [session] = rows(tmp_path / "goalbot.db", "select status, model_calls from sessions")
    # The run ended on its own terms: the budget, the goal or a failure, never cut off.
    assert session["status"] in ("ok", "failed", "cancelled") and 1 <= session["model_calls"] <= 3, dict(session)

"""The rooms of the house hold: the layer contracts in pyproject.toml pass, a deliberate violation
breaks them, and the light commands load none of the heavy parts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from import_graph import circles
from kit import REPO

LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT)], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def lint_available() -> None:
    if not LINT.exists():
        pytest.fail("lint-imports is missing: make test installs import-linter with the test extras")


def test_the_layer_contracts_hold(lint_available: None) -> None:
    result = _lint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" in result.stdout and "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "source"), [
    ("goalbot/agents/_probe.py", "import storage.db\n"),
    ("goalbot/llm/_probe.py", "import goalbot.agents.session\n"),
    ("goalbot/operators/_probe.py", "from textual.app import App\n"),
    ("storage/_probe.py", "import tui.app\n"),
    ("goalbot/mcp/_probe.py", "import goalbot.cli.terminal\n"),
    ("goalbot/cluster/_probe.py", "from goalbot.cli import batch_command\n"),
    ("goalbot/service/_probe.py", "import goalbot.mcp.runs\n"),
    ("goalbot/mcp/_probe2.py", "import goalbot.cluster.sealing\n"),
    ("goalbot/mcp/_probe3.py", "from tui.screens.run import LiveRun\n"),
    ("tui/_probe.py", "from goalbot.service.wiring import wire_run\n"),
    ("goalbot/cli/_probe.py", "from goalbot.service.ending import end_run\n"),
], ids=["agents-import-the-store", "llm-imports-agents", "operators-import-textual", "store-imports-the-dashboard",
        "mcp-imports-the-command-line", "cluster-imports-the-command-line", "service-imports-a-door",
        "a-door-imports-another", "mcp-imports-the-dashboard", "the-dashboard-wires-a-run",
        "the-command-line-ends-a-run"])
def test_a_deliberate_violation_breaks_them(lint_available: None, tmp_path: Path, module: str, source: str) -> None:
    for part in ("goalbot", "tui", "storage"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / module).write_text(source)
    result = _lint(tmp_path)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr


HEAVY = ("textual", "openai", "playwright", "tui", "PIL")


def _heavy_after(store: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """`goalbot --db store *command` in a fresh Python, which then names the heavy parts it loaded."""
    probe = (
        "import sys\n"
        "from goalbot.cli import main\n"
        "from storage.db import connect\n"
        f"connect(__import__('pathlib').Path({str(store)!r})).close()\n"
        "try:\n"
        f"    main(['--db', {str(store)!r}, *{command!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    return subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", [["tail", "-n", "5"], ["tail", "--json"], ["sessions", "--plain"], ["--help"]])
def test_light_commands_load_no_browser_model_or_dashboard(tmp_path: Path, command: list[str]) -> None:
    result = _heavy_after(tmp_path / "goalbot.db", command)
    assert "HEAVY []" in result.stderr, result.stderr


def test_a_batch_checks_its_jobs_without_loading_what_runs_them(tmp_path: Path) -> None:
    """Only a batch's slots run jobs: the batch itself reads and checks them, and hands them out,
    with no browser driver or model client loaded."""
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text('{"recipe": "no-such-recipe"}\n')
    result = _heavy_after(tmp_path / "goalbot.db", ["batch", str(jobs), "--workers", "1"])
    assert "no recipe no-such-recipe" in result.stderr, result.stderr  # checked, and refused
    assert "HEAVY []" in result.stderr, result.stderr


def test_no_two_modules_import_each_other_round_and_round() -> None:
    assert circles(REPO) == []


def test_a_deliberate_circle_is_found(tmp_path: Path) -> None:
    for part in ("goalbot", "tui", "storage"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    # The circle this house once had: running a goal keeps recipes through the recipe commands.
    (tmp_path / "goalbot/service/recipe_keeping.py").write_text("from goalbot.cli import recipe_command\n")
    found = circles(tmp_path)
    assert any({"goalbot.cli.recipe_command", "goalbot.service.recipe_keeping"} <= set(group) for group in found), found

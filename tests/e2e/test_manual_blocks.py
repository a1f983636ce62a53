"""Every shell block of the README and the manual runs as written, pasted whole: each page's blocks
in order, in one shell each, with the demo for a site and a model. Only the demo's ports move (this
machine may have 8765 taken by another test); plain-text blocks are shapes to fill in, not run."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import REPO, free_port_pair
from manual_kit import block_env, run_block, shell_blocks

PAGES = [page for page in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))] if shell_blocks(page)]


def test_the_pages_with_shell_blocks_are_found() -> None:
    names = {page.relative_to(REPO).as_posix() for page in PAGES}
    assert {"docs/guide/first-run.md", "docs/guide/recipes.md", "docs/guide/batches.md"} <= names, names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_shell_block_runs_as_written(page: Path, tmp_path: Path, chromium: None) -> None:
    port = free_port_pair()
    work = tmp_path / "work"
    work.mkdir()
    env = block_env(tmp_path)
    for block in shell_blocks(page):
        ran = run_block(block.replace("8765", str(port)).replace("8766", str(port + 1))
                        .replace("--serve-only", f"--serve-only --port {port}"), work, env, timeout=600)
        assert ran.returncode == 0, ran.said(block, page.name)
        assert "Traceback" not in ran.out + ran.err, ran.said(block, page.name)

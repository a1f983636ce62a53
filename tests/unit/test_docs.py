"""The manual: every command and setting has a page, the site builds with `mkdocs build --strict`,
and the README stays the short front page it is meant to be."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from pydantic import Field

from goalbot.cli.commands import build_parser
from goalbot.cli.reference import commands, filled, guide_text, undocumented
from goalbot.service.settings import Section, Settings, _declared
from kit import REPO

DOCS = REPO / "docs"


def test_every_command_and_setting_has_a_page() -> None:
    assert undocumented(build_parser(), guide_text(DOCS)) == []


def test_a_command_or_setting_nobody_documented_is_caught() -> None:
    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    subcommands.add_parser("frobnicate", help="a command added without a page")  # type: ignore[attr-defined]

    class MoreSettings(Settings):
        frob_level: int = _declared(Section.RUN, "", 3)
        wobble: int = Field(default=0)

    missing = undocumented(parser, guide_text(DOCS), MoreSettings)
    assert missing == ["command goalbot frobnicate: no guide page shows it",
                       "setting frob_level: the declaration says nothing about it",
                       "setting wobble: the declaration says nothing about it"]


def test_the_reference_pages_hold_the_current_help_and_settings_whole() -> None:
    """Read where Markdown is shown as it is (the repository's host), the pages are whole; they are
    made, not written by hand: `python -m goalbot.cli.reference` writes them again."""
    for page, mark in (("commands.md", "<!-- goalbot:commands -->"), ("settings.md", "<!-- goalbot:settings -->")):
        text = (DOCS / "reference" / page).read_text(encoding="utf-8")
        assert mark in text and mark.replace("<!-- ", "<!-- /") in text, page
        assert filled(text) == text, f"{page} is stale: run  python -m goalbot.cli.reference"
    commands_page = (DOCS / "reference" / "commands.md").read_text(encoding="utf-8")
    assert "## `goalbot run`" in commands_page and "--max-steps" in commands_page


def test_a_stale_reference_page_is_written_again() -> None:
    stale = "# Commands\n\n<!-- goalbot:commands -->\n\n## `goalbot old`\n\n<!-- /goalbot:commands -->\nafter\n"
    fresh = filled(stale)
    assert "goalbot old" not in fresh and "## `goalbot run`" in fresh and fresh.endswith("<!-- /goalbot:commands -->\nafter\n")
    assert filled(fresh) == fresh


def test_the_manual_builds_strict_offline_with_every_command_and_setting(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=REPO,
                           env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    page = (site / "reference" / "commands" / "index.html").read_text()
    for name, _ in commands(build_parser()):
        assert f"<code>{name}</code>" in page, name
    settings = (site / "reference" / "settings" / "index.html").read_text()
    assert all(f"<code>{name}</code>" in settings for name in Settings.model_fields)


def test_the_readme_is_a_front_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert 150 <= len(readme.splitlines()) <= 250  # a front page: what it is, how to start, a line per feature
    setup = readme.split("## Set up", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in setup.strip().splitlines()] == ["make demo", "make test"]
    # Words only the people who built it know.
    assert not re.search(r"seed 0\d\d|§|the issue'?s?\b", readme, re.IGNORECASE)
    for target in re.findall(r"\]\(((?:docs|tests)/[^)#]+)", readme):
        assert (REPO / target).exists(), target

"""What a newcomer meets in the first hour, each reproduced from a fresh clone: the version asked
for, an address typed without its scheme, and MCP tools described the way a host's model reads."""

from __future__ import annotations

from pathlib import Path

from mcp import Client

from goalbot.mcp.runs import HostRules
from goalbot.mcp.server import build_server
from goalbot.service.settings import load_settings
from kit import run_cli


def test_goalbot_says_its_version() -> None:
    shown = run_cli("--version")
    assert shown.returncode == 0 and shown.stdout.startswith("goalbot ") and shown.stdout.split()[1][0].isdigit()


def test_an_address_without_its_scheme_is_offered_whole(db_path: Path) -> None:
    run = run_cli("--db", str(db_path), "run", "look around", "--url", "127.0.0.1:8765/login", "--yes", "--no-tui",
                  "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert run.returncode == 2 and "http://127.0.0.1:8765/login" in run.stderr, run.stderr
    observed = run_cli("observe", "example.com")
    assert observed.returncode == 2 and "http://example.com" in observed.stderr, observed.stderr
    assert "Page.goto" not in observed.stderr and "Traceback" not in observed.stderr


async def test_mcp_tools_are_described_without_the_sources_indentation(db_path: Path) -> None:
    settings = load_settings({"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    async with Client(build_server(settings, db_path, HostRules())) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert tool.description and not any(line.startswith("  ") for line in tool.description.splitlines()), tool


def test_a_near_miss_is_offered_for_a_recipe_and_a_setting(db_path: Path) -> None:
    import os

    from goalbot.recipes.model import Recipe
    from storage import recipes
    from storage.db import opened

    with opened(db_path) as db:
        recipes.save(db, Recipe(name="darkmode", goal="turn on dark mode", start_url="http://shop.test/", steps=[]))
    rerun = run_cli("--db", str(db_path), "rerun", "darkmod", "--yes", "--no-tui")
    assert rerun.returncode == 2 and "did you mean darkmode?" in rerun.stderr, rerun.stderr
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "goalbot" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("max_cals = 3\n")
    listed = run_cli("--db", str(db_path), "sessions", "--plain")
    assert listed.returncode == 2 and "did you mean 'max_calls'?" in listed.stderr, listed.stderr

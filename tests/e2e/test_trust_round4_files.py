"""A file goalbot reads that someone else can put in place — the MCP key, the settings file, a
file of policies, a storage state, a scorecard — is read only when it is a regular file. A FIFO
in its place would block the read forever (nobody writes to it), a device would never end: each is
refused in one line, at once, with no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kit import run_cli

WITHIN_S = 30  # a command that hangs on the FIFO is stopped here, and fails the test


def _config_folder() -> Path:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "goalbot"  # each test's own (conftest)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _fifo(path: Path) -> Path:
    os.mkfifo(path, 0o600)  # only its user can read it: the key's own mode check lets it by
    return path


def _refused(*args: str, said: str = "FIFO (named pipe), not a regular file") -> str:
    result = run_cli(*args, timeout=WITHIN_S)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert said in result.stderr, result.stderr
    return result.stderr


@pytest.mark.parametrize("host", ["http", "claude"])
def test_an_mcp_key_made_a_fifo_is_refused(db_path: Path, host: str) -> None:
    key = _fifo(_config_folder() / "mcp-key")
    told = _refused("--db", str(db_path), "mcp", "--print-config", host)
    assert str(key) in told and "delete it" in told


def test_an_mcp_key_that_is_a_device_is_refused(db_path: Path) -> None:
    (_config_folder() / "mcp-key").symlink_to("/dev/zero")
    _refused("--db", str(db_path), "mcp", "--print-config", "http", said="mcp-key")


def test_a_settings_file_made_a_fifo_is_refused(db_path: Path) -> None:
    _fifo(_config_folder() / "config.toml")
    _refused("--db", str(db_path), "doctor")


def test_a_file_of_policies_made_a_fifo_is_refused(tmp_path: Path, db_path: Path) -> None:
    policies = _fifo(tmp_path / "policies.json")
    _refused("--db", str(db_path), "run", "read the page", "--url", "http://127.0.0.1:9/", "--no-tui",
             "--base-url", "http://127.0.0.1:9/v1", "--model", "scripted", "--policies", str(policies))


def test_a_storage_state_made_a_fifo_is_refused(hardsite, model_server, tmp_path: Path, db_path: Path) -> None:
    state = _fifo(tmp_path / "state.json")
    model = model_server({})
    result = run_cli("--db", str(db_path), "run", "read the page", "--url", hardsite.page("lookup"), "--no-tui",
                     "--yes", "--base-url", model.base_url, "--model", "scripted", "--storage-state", str(state),
                     timeout=WITHIN_S + 30)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 0 and "FIFO (named pipe), not a regular file" in result.stderr + result.stdout, \
        result.stderr


def test_a_scorecard_made_a_fifo_is_refused(tmp_path: Path) -> None:
    first, second = _fifo(tmp_path / "a.json"), tmp_path / "b.json"
    second.write_text("{}", encoding="utf-8")
    _refused("eval", "--compare", str(first), str(second))

"""Settings come from flags, then the environment, then the TOML file; bad input is explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import run_cli
from goalbot.cli.settings import ConfigError, load_settings


def test_flags_beat_environment_beat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('model = "from-file"\nbase_url = "http://file/v1"\nmax_steps = 7\n')
    monkeypatch.setenv("GOALBOT_MODEL", "from-env")
    settings = load_settings({"base_url": "http://flag/v1"}, config)
    assert (settings.base_url, settings.model, settings.max_steps) == ("http://flag/v1", "from-env", 7)


def test_api_key_is_kept_secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    settings = load_settings({}, tmp_path / "none.toml")
    assert settings.api_key.get_secret_value() == "sk-very-secret"
    assert "sk-very-secret" not in repr(settings) and "sk-very-secret" not in settings.model_dump_json()


@pytest.mark.parametrize(
    ("text", "message"),
    [("model = ", "cannot read"), ("colour = 'blue'", "unknown settings colour"),
     ("max_steps = 0", "max_steps")],
)
def test_bad_config_file(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_settings({}, config)


def test_bad_flags_get_a_message_not_a_traceback() -> None:
    result = run_cli("run", "goal", "--max-steps", "many")
    assert result.returncode == 2 and "invalid int value: 'many'" in result.stderr
    result = run_cli("run", "goal", "--max-steps", "0", "--no-tui", "--yes")
    assert result.returncode == 2 and "max_steps" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_tui_without_yes_and_without_a_terminal_refuses_early(db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "goal", "--no-tui")
    assert result.returncode == 2
    assert "nobody can approve the plan here: pass --yes" in result.stderr
    assert not db_path.exists()

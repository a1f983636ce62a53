"""Settings come from flags, then the environment, then the TOML file; bad input is explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import run_cli
from goalbot.cli.settings import ConfigError, load_settings, remember_setting


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


def test_a_remembered_setting_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# my endpoint\nmodel = "m"\ntheme = "old"\n\n[prices.m]\ninput = 1.0\noutput = 2.0\n')
    remember_setting("theme", "nord", config)
    text = config.read_text()
    assert text.startswith('# my endpoint\nmodel = "m"\ntheme = "nord"\n') and "[prices.m]\ninput = 1.0" in text
    assert load_settings({}, config).theme == "nord"

    remember_setting("theme", "dracula", tmp_path / "new" / "config.toml")  # no file yet: one is made
    assert load_settings({}, tmp_path / "new" / "config.toml").theme == "dracula"


def test_a_file_that_cannot_be_kept_whole_is_left_untouched(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    broken = 'model = "m"\nmodel = "twice"\n'  # not TOML: nothing written could be read back
    config.write_text(broken)
    with pytest.raises(ConfigError, match="cannot keep theme"):
        remember_setting("theme", "nord", config)
    assert config.read_text() == broken


async def test_the_theme_chosen_in_the_palette_is_the_next_dashboards(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from dashboard_kit import until
    from goalbot.cli.dashboard import _app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    config = tmp_path / "xdg" / "goalbot" / "config.toml"
    app = _app(load_settings({"images": "none"}), tmp_path / "goalbot.db", opening="run")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the palette")
        await pilot.press(*"theme")
        await pilot.pause(0.5)
        await pilot.press("enter")  # the palette's "Theme" command opens a palette of themes
        await until(pilot, lambda: "theme" in getattr(app.screen.query("Input").first(), "placeholder", "")
                    if app.screen.query("Input") else False, "the palette of themes")
        await pilot.press(*"nord", "enter")
        await until(pilot, lambda: config.exists() and 'theme = "nord"' in config.read_text(), "the theme kept")
    again = _app(load_settings({"images": "none"}), tmp_path / "goalbot.db", opening="run")
    assert again.theme == "nord"

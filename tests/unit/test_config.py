"""Settings come from flags, then the environment, then the TOML file; bad input is explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import run_cli
from goalbot.service.settings import ConfigError, load_settings, remember_setting


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
    [("model = ", "cannot read"), ("colour = 'blue'", "unknown setting 'colour'"),
     ("max_steps = 0", "max_steps"), ("[run]\nbase_url = 'http://x/v1'", r"base_url belongs in \[model\], not \[run\]"),
     ("[safety]\nspeed = 3", r"\[safety\] has no setting 'speed'")],
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


def test_the_file_in_tables_reads_as_the_flat_one_and_a_remembered_setting_goes_to_its_table(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[model]\nbase_url = "http://local/v1"\nmax_calls = 50\n\n[prices.m]\ninput = 1.0\n'
                      'output = 2.0\n\n[run]\nmax_steps = 30\n\n[safety]\nallow_domain = ["*.example.com"]\n')
    settings = load_settings({}, config)
    assert (settings.base_url, settings.max_calls, settings.max_steps) == ("http://local/v1", 50, 30)
    assert settings.allow_domain == ["*.example.com"] and settings.prices["m"].output == 2.0
    remember_setting("theme", "nord", config)
    assert config.read_text().endswith('[dashboard]\ntheme = "nord"\n')
    remember_setting("theme", "dracula", config)
    assert config.read_text().count("theme =") == 1 and load_settings({}, config).theme == "dracula"


def test_every_setting_is_declared_once_and_its_flag_says_its_default() -> None:
    """One declaration per setting: its flag, help, default, table and variable all come from it."""
    from goalbot.cli.commands import build_parser
    from goalbot.service.settings import Settings, declared

    parser = build_parser()
    run = next(a for a in parser._subparsers._group_actions[0].choices.values() if a.prog.endswith(" run"))  # type: ignore[union-attr]
    flags = {action.dest: action for action in run._actions}
    for name, field in Settings.model_fields.items():
        how = declared(name)
        if how.flag == "":  # the file only (prices, theme), or a global flag (db)
            continue
        assert name in flags, f"{name} has no flag on run"
        assert flags[name].option_strings == [how.flag_of(name)]
        default = field.get_default(call_default_factory=True)
        if how.show_default and default not in (None, False, "", [], {}):
            shown = f"{default:g}" if isinstance(default, float) else str(default)
            assert f"default {shown}" in str(flags[name].help), name
        if how.env:
            assert how.env in str(flags[name].help), name


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
    from goalbot.cli.dashboard import app_for

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    config = tmp_path / "xdg" / "goalbot" / "config.toml"
    app = app_for(load_settings({"images": "none"}), tmp_path / "goalbot.db", opening="run")
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
    again = app_for(load_settings({"images": "none"}), tmp_path / "goalbot.db", opening="run")
    assert again.theme == "nord"


def test_every_configuration_file_in_the_manual_reads(tmp_path: Path) -> None:
    import re

    from kit import REPO

    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    blocks = [block for page in pages for block in re.findall(r"^```toml\n(.*?)^```", page.read_text("utf-8"),
                                                               re.MULTILINE | re.DOTALL)]
    assert len(blocks) >= 2, "the configuration page and your-model show a file"
    for number, block in enumerate(blocks):
        config = tmp_path / f"config{number}.toml"
        config.write_text(block)
        load_settings({}, config)  # a key in the wrong table, or no setting's, is a ConfigError
    whole = next(n for n, block in enumerate(blocks) if "[dashboard]" in block)  # the configuration page's
    reference = load_settings({}, tmp_path / f"config{whole}.toml")
    assert (reference.model, reference.max_steps, reference.theme) == ("qwen2.5-vl-7b", 30, "nord")

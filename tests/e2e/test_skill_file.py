"""The skill file a coding agent reads (`goalbot skill`) stays true: every command it names parses
with the flags it gives, and run for real with --json, each returns the keys the file says.
Real Chromium, the test site, the scripted model over HTTP, real `goalbot` processes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from goalbot.cli.commands import build_parser
from hardsite.server import HardSite
from kit import darkmode_script, run_cli

SAVED = re.compile(r"^- `goalbot (run [^`]+--save-recipe[^`]+)`", re.M)
LINE = re.compile(r"^- `(goalbot [^`]+)`: returns (a list of )?`\{([^}]*)\}`", re.M)


def _promised() -> list[tuple[str, bool, set[str]]]:
    text = run_cli("skill").stdout
    found = [(command, bool(listed), set(re.findall(r'"(\w+)"', keys))) for command, listed, keys in LINE.findall(text)]
    assert len(found) >= 7, text
    return found


def _concrete(command: str, values: dict[str, str]) -> list[str]:
    words = shlex.split(command.removeprefix("goalbot "))
    return [values.get(word, word) for word in words]


def test_every_command_the_skill_file_names_parses_with_its_flags() -> None:
    parser = build_parser()
    for command, _, _ in _promised():
        words = _concrete(command, {"GOAL": "a goal", "URL": "http://127.0.0.1/", "FILE": "s.json", "NAME": "x",
                                    "KEY=VALUE": "K=V", "SESSION": "s1"})
        parser.parse_args(words)  # an unknown flag or command exits the test with a usage error


def _keys(stdout: str, listed: bool) -> set[str]:
    document: Any = json.loads(stdout)
    if listed:
        assert isinstance(document, list) and document, stdout
        return set(document[0])
    return set(document)


def test_each_command_returns_the_keys_the_skill_file_promises(hardsite: HardSite, model_server, db_path: Path,
                                                                tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server({role: answers * 3 for role, answers in darkmode_script().items()})
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"heading": {"type": "string"}}}))
    common = ["--db", str(db_path)]
    model_flags = ["--base-url", model.base_url, "--model", "scripted"]
    values = {"GOAL": "sign in and turn on dark mode", "URL": hardsite.page("darkmode"), "NAME": "darkmode",
              "KEY=VALUE": "user=alice", "FILE": str(schema)}
    recorded = run_cli(*common, *_concrete(next(c for c in SAVED.findall(run_cli("skill").stdout)), values),
                       "--secret", "PW=hunter2", *model_flags, timeout=240)
    assert recorded.returncode == 0, recorded.stderr
    values["SESSION"] = json.loads(recorded.stdout)["session"]
    checked = 0
    for command, listed, keys in _promised():
        words = _concrete(command, values)
        if words[0] in ("run", "rerun"):
            words += ["--secret", "PW=hunter2"]
        if words[0] in ("run", "doctor"):
            words += model_flags
        result = run_cli(*common, *words, timeout=240)
        assert "Traceback" not in result.stderr, result.stderr
        got = _keys(result.stdout, listed)
        assert keys <= got if listed else keys == got, (command, keys, got)
        checked += 1
    assert checked >= 7

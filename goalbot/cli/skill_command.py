"""`goalbot skill`: the skill file a coding agent reads to use goalbot from its shell (the commands
with --json, what each returns, how approvals reach the person), printed as it ships."""

from __future__ import annotations

import argparse
from importlib.resources import files
from pathlib import Path

from goalbot.service.settings import Settings


def skill_text() -> str:
    return files("goalbot.skill").joinpath("goalbot.md").read_text(encoding="utf-8")


def cmd_skill(_args: argparse.Namespace, _settings: Settings, _db_path: Path) -> int:
    print(skill_text(), end="")
    return 0

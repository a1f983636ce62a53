"""The reference pages of the manual, made from the parser and from the one declaration of settings,
so neither is ever written twice. The text sits between `<!-- goalbot:commands -->` (or
`settings`) and its closing mark in the page itself, so the page reads whole where Markdown is
shown as it is (the repository's host); `python -m goalbot.cli.reference` writes it again, a test
says when it is stale, and `mkdocs.yml` loads this module as a hook that puts the current text in
the built manual. `undocumented` is what the docs test asks: which command or setting the guide
never explains."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel

from goalbot.service.settings import Settings, declared

COMMANDS_MARK = "<!-- goalbot:commands -->"
SETTINGS_MARK = "<!-- goalbot:settings -->"
REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference"
HELP_WIDTH = "100"  # the help as a 100-column terminal prints it


def commands(parser: argparse.ArgumentParser, prefix: str = "goalbot") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command and sub-command, by its whole name (`goalbot recipe show`), in parser order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield f"{prefix} {name}", command
                yield from commands(command, f"{prefix} {name}")


def commands_markdown(parser: argparse.ArgumentParser) -> str:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH  # argparse wraps at the terminal's width, read at format time
    try:
        parts = [f"## `{name}`\n\n```text\n{command.format_help().rstrip()}\n```\n" for name, command in commands(parser)]
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "\n".join(parts)


def _default(field: Any) -> str:
    value = field.get_default(call_default_factory=True)
    if value in (None, "", [], {}) or getattr(value, "get_secret_value", None):
        return "–"
    return f"`{value.value if hasattr(value, 'value') else value}`"


def settings_markdown(settings: type[BaseModel] = Settings) -> str:
    rows = ["| setting | table | flag | environment | default | what it is |", "|---|---|---|---|---|---|"]
    for name, field in settings.model_fields.items():
        how = declared(name)
        flag = f"`{how.flag_of(name)}`" if how.flag != "" else "–"
        env = f"`{how.env}`" if how.env else "–"
        text = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | `[{how.section.value}]` | {flag} | {env} | {_default(field)} | {text} |")
    return "\n".join(rows) + "\n"


def undocumented(parser: argparse.ArgumentParser, guide: str, settings: type[BaseModel] = Settings) -> list[str]:
    """What a user could not learn from the manual: a command the guide never shows at work (the
    reference alone lists flags, not what the command is for), or a setting with no words of its
    own in the declaration the reference is made from."""
    missing = [f"command {name}: no guide page shows it" for name, _ in commands(parser)
               if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", guide)]
    for name, field in settings.model_fields.items():
        if len((field.description or "").split()) < 2:
            missing.append(f"setting {name}: the declaration says nothing about it")
    return missing


def guide_text(docs: Path) -> str:
    """Every hand-written page: the generated reference does not count as explaining anything."""
    return "\n".join(page.read_text(encoding="utf-8") for page in sorted(docs.rglob("*.md"))
                     if page.parent.name != "reference" or page.name not in {"commands.md", "settings.md"})


def _closing(mark: str) -> str:
    return mark.replace("<!-- ", "<!-- /", 1)


def filled(markdown: str) -> str:
    """`markdown` with the current generated text between each mark and its closing mark."""
    for mark in (COMMANDS_MARK, SETTINGS_MARK):
        if mark not in markdown:
            continue
        if mark == COMMANDS_MARK:
            from goalbot.cli.commands import build_parser

            text = commands_markdown(build_parser())
        else:
            text = settings_markdown()
        before, rest = markdown.split(mark, 1)
        after = rest.split(_closing(mark), 1)[1] if _closing(mark) in rest else rest
        markdown = f"{before}{mark}\n\n{text.rstrip()}\n\n{_closing(mark)}{after}"
    return markdown


def on_page_markdown(markdown: str, **_: Any) -> str:
    """mkdocs' hook: the current generated text where a page marks it, stale or not in the file."""
    return filled(markdown)


def write_pages(folder: Path = REFERENCE) -> list[Path]:
    """The reference pages with their generated text written again; the ones that changed."""
    changed = []
    for page in (folder / "commands.md", folder / "settings.md"):
        old = page.read_text(encoding="utf-8")
        new = filled(old)
        if new != old:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


if __name__ == "__main__":
    for written in write_pages():
        print(f"wrote {written}")

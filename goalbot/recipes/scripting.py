"""A recipe as code a person owns: one standalone Python file that uses Playwright only. Each
recorded action becomes a statement that finds its element by the recorded locators (role and
name first, then the test id, id, label, placeholder, CSS path and XPath) and checks what the
action changed the first time; variables are command-line arguments, secrets come from the
environment, and an action goalbot would have asked a GO for carries a comment saying so.

What it cannot carry (healing, gates, the store) its header says. An `extract` or a `choose`
reads data by a model or by a policy over it, which a plain script has neither of: exported as a
stop that names `goalbot rerun`, so the script never goes on without the data."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

from goalbot.agents.risk import words_risk
from goalbot.recipes.model import Evidence, Recipe, RecipeAction, RecipeStep, When

PLAYWRIGHT_ROLES = {  # the observation's roles Playwright's get_by_role knows
    "button", "checkbox", "combobox", "link", "listbox", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
    "radio", "searchbox", "slider", "spinbutton", "switch", "tab", "textbox", "treeitem", "heading", "cell", "row",
}
SECRET = re.compile(r"<secret:([A-Za-z0-9_]+)>")
# Roles whose name is the text they show: a place found by its CSS path must show the same.
NAMED_BY_TEXT = frozenset({"button", "link", "menuitem", "tab", "option", "treeitem", "heading", "cell"})
ACTIVATES = {"click", "double_click", "key", "hotkey"}

RUNTIME = r'''
import argparse
import os
import re
import shutil
import sys
import time
from urllib.parse import quote, quote_plus, urlsplit

from playwright.sync_api import Error, Locator, Page, expect, sync_playwright

PATIENCE_S = 10  # how long an element, an address or a text may take to come


def slug(value: str) -> str:
    return re.sub(r"[\W_]+", "-", value.lower()).strip("-")


FORMS = {"": lambda v: v, "lower": str.lower, "upper": str.upper, "slug": slug,
         "url": lambda v: quote(v, safe=""), "form": quote_plus}


def fill(text: str, values: dict[str, str]) -> str:
    """The recorded text with today's values in place of its {{NAME}} and {{NAME|form}}."""
    def one(match: re.Match[str]) -> str:
        name, form = match.group(1), match.group(2) or ""
        return FORMS[form](values[name]) if name in values else match.group(0)
    return re.sub(r"\{\{([A-Za-z_][A-Za-z0-9_]*)(?:\|([a-z]+))?\}\}", one, text)


def candidates(page: Page, ways: list[tuple[str, str]]) -> list[Locator]:
    made = []
    # A place on the page (a CSS path, an XPath) may hold a look-alike tomorrow ("Copper Teapot
    # Warmer" where "Copper Teapot" was): it counts only when what it finds says the recorded name.
    named = next((value for kind, value in ways if kind == "named"), "")
    says = re.compile(r"^\s*" + re.escape(named) + r"\s*$", re.IGNORECASE) if named else None
    for kind, value in ways:
        if kind == "named":
            continue
        if kind == "role":
            role, _, name = value.partition("\n")
            made.append(page.get_by_role(role, name=name, exact=True))  # type: ignore[arg-type]
        elif kind == "test_id":
            made.append(page.get_by_test_id(value))
        elif kind == "label":
            made.append(page.get_by_label(value, exact=True))
        elif kind == "placeholder":
            made.append(page.get_by_placeholder(value, exact=True))
        else:  # css, or xpath=…
            made.append(page.locator(value) if says is None else page.locator(value).filter(has_text=says))
    return made


def present(page: Page, ways: list[tuple[str, str]]) -> Locator | None:
    """The first locator that names exactly one visible element now; None when none does."""
    for locator in candidates(page, ways):
        try:
            if locator.count() == 1 and locator.is_visible():
                return locator
        except Error:
            continue
    return None


def find(page: Page, what: str, ways: list[tuple[str, str]]) -> Locator:
    """The element, by the first recorded locator that names exactly one, within PATIENCE_S."""
    deadline = time.monotonic() + PATIENCE_S
    while True:
        found = present(page, ways)
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no recorded locator finds {what} on {page.url}")
        page.wait_for_timeout(200)


def wild(text: str, number: str) -> re.Pattern[str]:
    """`text` as a pattern: each * is a number the recorded run made (a new object's id)."""
    return re.compile(number.join(re.escape(part) for part in text.split("*")))


def on_path(page: Page, path: str) -> None:
    """The address's path holds `path`, compared by whole segments, within PATIENCE_S."""
    want = [wild(part, r"\d+") for part in path.split("/") if part]
    deadline = time.monotonic() + PATIENCE_S
    while True:
        have = [part for part in urlsplit(page.url).path.split("/") if part]
        if not want or any(all(w.fullmatch(h) for w, h in zip(want, have[i:i + len(want)]))
                           for i in range(len(have) - len(want) + 1)):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the page is {page.url}, not at {path}")
        page.wait_for_timeout(200)


def says(page: Page, text: str) -> None:
    shown = page.get_by_text(wild(text, r"(?:\d+|\*)") if "*" in text else text)
    expect(shown.first).to_be_visible(timeout=PATIENCE_S * 1000)


def launch(playwright, headed: bool):  # type: ignore[no-untyped-def]
    """Chromium: $CHROMIUM, else a system Chromium, else Playwright's own (playwright install chromium)."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run"] if path else []
    return playwright.chromium.launch(executable_path=path, headless=not headed, args=flags)
'''

MAIN = r'''

def option(name: str) -> str:
    """The flag of a variable: --NAME, or --var-NAME where the script's own flags have the name."""
    return f"--var-{name}" if name in ("url", "headed", "help") else f"--{name}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--url", help="start here instead of the recorded page")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    for n, name in enumerate(VARIABLES):
        parser.add_argument(option(name), dest=f"value_{n}", required=True, metavar="VALUE",
                            help=f"the recipe's {{{{{name}}}}}")
    arguments = parser.parse_args()
    values = {name: getattr(arguments, f"value_{n}") for n, name in enumerate(VARIABLES)}
    missing = [f"SECRET_{name}" for name in SECRETS if f"SECRET_{name}" not in os.environ]
    if missing:
        print(f"set {', '.join(missing)} in the environment: the secrets this flow types", file=sys.stderr)
        return 2
    secrets = {name: os.environ[f"SECRET_{name}"] for name in SECRETS}
    with sync_playwright() as playwright:
        browser = launch(playwright, arguments.headed)
        page = browser.new_page()
        try:
            page.goto(arguments.url or fill(START_URL, values))
            run(page, values, secrets)
        except (AssertionError, Error) as exc:
            print(f"{NAME}: stopped: {str(exc).splitlines()[0]}", file=sys.stderr)
            return 1
        finally:
            browser.close()
    print(f"{NAME}: every step ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


class ScriptWriter:
    """Writes one recipe, with the blocks it runs, as the body of a Playwright script."""

    def __init__(self, recipe: Recipe, blocks: dict[str, Recipe]) -> None:
        self.recipe, self.blocks = recipe, blocks
        self.functions: dict[str, list[str]] = {}  # block functions, by name
        self.variables = list(recipe.variables)  # and a block's own, when its step does not bind them

    def script(self, file_name: str) -> str:
        recipe = self.recipe
        body = self._steps(recipe.steps, "    ")  # first: the blocks it runs become functions on the way
        # Names come from a recipe file, which may be anyone's: every piece of the docstring is one
        # safe line, and every value in code is a repr.
        flags = [f"--var-{name}" if name in ("url", "headed", "help") else f"--{name}" for name in self.variables]
        usage = _line(" ".join([f"{flag} …" for flag in flags] + ["[--url START] [--headed]"]))
        secrets = _line("".join(f"SECRET_{name}=… " for name in self.secrets()))
        file_name = _line(file_name)
        header = f'''#!/usr/bin/env python3
"""{_line(recipe.name)} v{recipe.version}: {_line(recipe.goal)}

Written by `goalbot recipe export {recipe.name} --as playwright` from the recipe's recorded
steps. It needs Python and Playwright only (pip install playwright), not goalbot:

    {secrets}python {file_name} {usage}

What it leaves out that `goalbot rerun {recipe.name}` does: no healing (an element none of whose
recorded locators names exactly one thing stops it, where a rerun finds it again or asks a model
or you); no GO / NOT GO (the actions goalbot asks about are marked GO below and run without
asking); no allowed domains, held writes or secret guard; no store, events, report or replay.
"""
'''
        constants = [f"NAME = {recipe.name!r}", f"START_URL = {recipe.start_url!r}",
                     f"VARIABLES = {self.variables!r}", f"SECRETS = {self.secrets()!r}"]
        run = ["def run(page: Page, values: dict[str, str], secrets: dict[str, str]) -> None:", *_body(body, "    ")]
        sections = [header + RUNTIME.strip(), "\n".join(constants),
                    *("\n".join(lines) for lines in self.functions.values()), "\n".join(run), MAIN.strip()]
        return "\n\n\n".join(sections) + "\n"

    def secrets(self) -> list[str]:
        """The secrets it types, its blocks' too: each read from SECRET_NAME."""
        names = list(self.recipe.secrets)
        for block in self.blocks.values():
            names += [name for name in block.secrets if name not in names]
        return names

    def _steps(self, steps: list[RecipeStep], pad: str) -> list[str]:
        lines: list[str] = []
        for number, step in enumerate(steps, 1):
            lines.append(f"{pad}# {number}. {_line(step.description)}")
            if step.block is not None:
                lines += self._block(step, pad)
            elif step.for_each is not None:
                lines.append(f"{pad}raise AssertionError({_text(f'step {number} goes through a list an extract read: run goalbot rerun {self.recipe.name}')})")
            elif step.branches:
                lines += self._ways(step, 0, pad)
            else:
                lines += self._actions(step.actions, pad)
        return lines

    def _ways(self, step: RecipeStep, done: int, pad: str, passed: int = -1) -> list[str]:
        """The step from its recorded way's action `done` on: the recorded actions up to where
        another way parts from it, then each way that parts there under its condition; `passed`:
        where the ways already written parted."""
        parting = sorted({branch.after for branch in step.branches if branch.after >= done and branch.after > passed})
        if not parting:
            return self._actions(step.actions[done:], pad)
        at = min(parting[0], len(step.actions))
        lines = self._actions(step.actions[done:at], pad)
        here = [(way, branch) for way, branch in enumerate(step.branches, 2) if branch.after == parting[0]]
        for n, (way, branch) in enumerate(here):
            lines.append(f"{pad}{'if' if n == 0 else 'elif'} {_condition(branch.when)}:  # way {way}")
            lines += _body(self._actions(branch.actions, pad + "    "), pad + "    ")
        lines.append(f"{pad}else:  # way 1, as recorded")
        rest = self._ways(step, at, pad + "    ", parting[0])
        return lines + _body(rest, pad + "    ")

    def _block(self, step: RecipeStep, pad: str) -> list[str]:
        assert step.block is not None
        block = self.blocks.get(step.block.key())
        if block is None:
            return [f"{pad}raise AssertionError({_text(f'block {step.block.recipe} was not in the store when exported')})"]
        function = "block_" + re.sub(r"\W", "_", block.name)
        if function not in self.functions:
            self.functions[function] = [  # reserved first: a block that runs itself is refused before export
                f"def {function}(page: Page, values: dict[str, str], secrets: dict[str, str]) -> None:",
                f'    """Block {_line(block.name)} v{block.version}: {_line(block.goal)}"""']
            self.functions[function] += _body(self._steps(block.steps, "    "), "    ")
        self.variables += [name for name in block.variables if name not in step.block.values
                           and name not in self.variables]
        bound = ", ".join(f"{name!r}: fill({step.block.values[name]!r}, values)"
                          if name in step.block.values else f"{name!r}: values[{name!r}]"
                          for name in block.variables)
        return [f"{pad}{function}(page, {{{bound}}}, secrets)  # {_line(step.block.words())}"]

    def _actions(self, actions: list[RecipeAction], pad: str) -> list[str]:
        lines: list[str] = []
        for action in actions:
            lines += [pad + line for line in _action(action)]
        return lines


def _action(recorded: RecipeAction) -> list[str]:
    name, args = recorded.action.name, recorded.action.args()
    target = recorded.target
    lines = [f"# {_line(recorded.words())}"]
    if recorded.fingerprint.url_contains:
        lines.append(f"on_path(page, fill({_text(recorded.fingerprint.url_contains)}, values))")
    risk = words_risk(" ".join([target.name, target.label, target.nearby] if target else [])) \
        if name in ACTIVATES or args.get("submit") else None
    if risk is not None:
        lines.append(f"# GO: goalbot asks before this ({risk.value}); this script does it without asking")
    if name in ("extract", "choose"):
        return lines + [f"raise AssertionError({_text(f'this step reads data ({name}): run goalbot rerun')})"]
    element = ""
    if target is not None:
        what = _text(f"{target.role} {target.name!r}".strip())
        ways = _ways(target)
        if recorded.optional:
            lines.append(f"element = present(page, {ways})  # it dismissed a {_line(target.overlay)}: only when it came")
            lines.append("if element is not None:")
            return lines + ["    " + line for line in _do(name, args, "element") + _expect(recorded, "element")]
        lines.append(f"element = find(page, {what}, {ways})")
        element = "element"
        if name == "click" and recorded.expect.state:  # the state it set, left alone where it already holds
            return lines + [f"element.set_checked({recorded.expect.state == 'checked'})"] + _expect(recorded, element)
    return lines + _do(name, args, element) + _expect(recorded, element)


def _do(name: str, args: dict[str, Any], element: str) -> list[str]:
    on = element or "page"
    match name:
        case "click":
            return [f"{on}.click()"] if element else [f"page.mouse.click({_number(args.get('x'))!r}, "
                                                      f"{_number(args.get('y'))!r})"]
        case "double_click":
            return [f"{element}.dblclick()"]
        case "right_click":
            return [f"{element}.click(button=\"right\")"]
        case "hover":
            return [f"{element}.hover()"]
        case "type":
            text = _value(str(args.get("text", "")))
            target = element or "page.locator(':focus')"
            typed = [f"{target}.fill({text})" if args.get("clear", True) else f"{target}.press_sequentially({text})"]
            return typed + ([f"{target}.press(\"Enter\")"] if args.get("submit") else [])
        case "select_option":
            return [f"{element}.select_option(label=fill({_text(str(args.get('option', '')))}, values))"]
        case "key":
            return [f"page.keyboard.press({_text(str(args.get('key', '')))})"]
        case "hotkey":
            return [f"page.keyboard.press({_text('+'.join(str(k) for k in args.get('keys', [])))})"]
        case "navigate":
            return [f"page.goto(fill({_text(str(args.get('url', '')))}, values))"]
        case "go_back":
            return ["page.go_back()"]
        case "scroll":
            sign = -1 if str(args.get("direction", "down")) in ("up", "left") else 1
            return [f"page.mouse.wheel(0, {sign * int(_number(args.get('amount'), 600, most=100_000))})"]
        case "wait":
            return [f"page.wait_for_timeout({int(_number(args.get('seconds'), 1, most=3600) * 1000)})"]
    return [f"raise AssertionError({_text(f'{name} is not exported: run goalbot rerun')})"]


def _expect(recorded: RecipeAction, element: str) -> list[str]:
    expect_ = recorded.expect
    lines = []
    if expect_.url_contains:
        lines.append(f"on_path(page, fill({_text(expect_.url_contains)}, values))")
    for text in expect_.text_appeared:
        lines.append(f"says(page, fill({_text(text)}, values))")
    if expect_.element_gone and element:
        lines.append(f"expect({element}).to_be_hidden(timeout=PATIENCE_S * 1000)")
    return lines


def _ways(target: Evidence) -> str:
    """The element's recorded locators, as (kind, value) pairs: role and name first."""
    ways: list[tuple[str, str]] = []
    if target.role in PLAYWRIGHT_ROLES and target.name:
        ways.append(("role", f"{target.role}\n{target.name}"))
    if target.test_id:
        ways.append(("test_id", target.test_id))
    if target.id:
        ways.append(("css", f"[id={json.dumps(target.id)}]"))
    if target.label:
        ways.append(("label", target.label))
    if target.placeholder:
        ways.append(("placeholder", target.placeholder))
    if target.css:
        ways.append(("css", target.css))
    if target.xpath:
        ways.append(("css", f"xpath={target.xpath}"))
    if target.name and target.role in NAMED_BY_TEXT and any(kind == "css" for kind, _ in ways):
        ways.append(("named", target.name))
    pairs = ", ".join(f"({_text(kind)}, {_value(value) if kind != 'css' else _text(value)})" for kind, value in ways)
    return f"[{pairs}]"


def _condition(when: When) -> str:
    parts = []
    if when.element is not None:
        parts.append(f"present(page, {_ways(when.element)}) is not None")
    if when.text:
        parts.append(f"page.get_by_text(fill({_text(when.text)}, values)).count() > 0")
    if when.url_contains:
        parts.append(f"fill({_text(when.url_contains)}, values).strip('/') in urlsplit(page.url).path")
    return " and ".join(parts) or "False"


def _body(lines: list[str], pad: str) -> list[str]:
    """A block of statements: one that holds only comments gets a `pass`."""
    return lines if any(not line.strip().startswith("#") for line in lines) else [*lines, f"{pad}pass"]


def _value(text: str) -> str:
    """A recorded text as an expression: its secrets from `secrets`, its {{variables}} filled."""
    pieces = SECRET.split(text)
    parts = [f"secrets[{piece!r}]" if n % 2 else f"fill({_text(piece)}, values)"
             for n, piece in enumerate(pieces) if piece or n % 2]
    return " + ".join(parts) or '""'


def _text(text: str) -> str:
    """A recorded text as a Python literal: repr, never pasted, whatever quotes or escapes it holds."""
    return repr(str(text))


def _number(value: object, default: float = 0.0, most: float = 1e6) -> float:
    """A recorded number as a finite float within ±`most` ("1e3", "inf", "nan" and words as
    they may come from a recipe file): what goes into code is a number, never a name."""
    try:
        number = float(value) if value is not None and value != "" else default  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return max(-most, min(most, number)) if math.isfinite(number) else default


def _line(text: str) -> str:
    """Text from a recipe, safe inside a comment or a docstring: one line, no double quote to end it,
    no control, format or surrogate character (a NUL stops Python compiling, a surrogate stops
    the file being written)."""
    shown = "".join(ch if unicodedata.category(ch)[0] not in "CZ" or ch == " " else " " for ch in str(text))
    return " ".join(shown.split()).replace('"', "'").replace("\\", "/")[:200]

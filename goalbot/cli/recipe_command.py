"""`goalbot recipe …` (save, import, list, show, diff, export, delete, block, loop): a session
that reached its goal kept as a recipe, and the recipes kept, shown, moved, and made into blocks
and loops."""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goalbot.agents.document_items import shape_in_words
from goalbot.agents.secrets import SecretError
from goalbot.cli.terminal import fail
from goalbot.recipes import folder
from goalbot.recipes.build import RecipeError
from goalbot.recipes.model import Block, Evidence, Recipe, RecipeAction, Recorded
from goalbot.recipes.scripting import ScriptWriter
from goalbot.service.blocks import BlockError, blocks_of, make_block
from goalbot.service.loops import LoopError, make_loop
from goalbot.service.recipe_keeping import save_from_session
from goalbot.service.request import parse_variable
from goalbot.service.settings import Settings
from goalbot.text.eventfmt import printable
from storage import recipes
from storage.db import connect, opened

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


def cmd_recipe(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    action = args.recipe_command
    if action == "save":
        try:
            variables = dict(parse_variable(text) for text in args.var or [])
            saved = save_from_session(db_path, args.session, args.name, variables)
        except (RecipeError, SecretError) as exc:
            return fail(str(exc))
        print(f"goalbot: saved recipe {saved.name} v{saved.version}: {len(saved.steps)} steps, "
              f"{len(saved.actions)} actions (goalbot rerun {saved.name})")
        return 0
    if action == "import":
        return _import(db_path, args.folder)
    db = connect(db_path, create=False)
    try:
        if action == "list":
            return _list(db, args.json)
        if action == "delete":  # an unreadable recipe can still be deleted
            count = recipes.delete(db, args.name)
            if not count:
                return fail(f"no recipe {args.name} in {db_path} (goalbot recipe list)")
            print(f"goalbot: deleted recipe {printable(args.name)} ({count} versions)")
            return 0
        if action == "diff":
            return _diff(db, args.name, args.old, args.new)
        if action == "block":
            return _block(db, args)
        if action == "loop":
            return _loop(db, args)
        recipe = recipes.load(db, args.name, getattr(args, "version", None))
        if recipe is None:
            which = f" v{args.version}" if getattr(args, "version", None) else ""
            return fail(f"no recipe {args.name}{which} in {db_path} (goalbot recipe list)")
        if action == "export" and args.export_as == "playwright":
            return _script(db, recipe, args.folder)
        if action == "export":
            try:
                written = folder.export(recipe, args.folder, _readme(recipe), _summary(db_path, recipe))
            except RecipeError as exc:
                return fail(str(exc))
            print(f"goalbot: wrote recipe {recipe.name} v{recipe.version} to {args.folder} "
                  f"({', '.join(path.name for path in written)})")
            return 0
        figures = recipes.metrics(db, recipe.name)
        if args.json:
            shown = {**recipe.model_dump(mode="json"), "metrics": figures.model_dump()}
            print(json.dumps(shown, ensure_ascii=True, indent=2))  # escapes stay escaped
        else:
            print(show(recipe, recipes.heals_of(db, recipe), _blocks(db, recipe)) + "\n" + figures.line())
        return 0
    except recipes.UnreadableRecipe as exc:
        return fail(str(exc))
    finally:
        db.close()


def _summary(db_path: Path, recipe: Recipe) -> str | None:
    """The report of the run that made this version, as the export's summary.md."""
    from goalbot.service.reports import store_report

    return store_report(db_path, recipe.source_session) if recipe.source_session else None


def _import(db_path: Path, source: Path) -> int:
    try:
        recipe = folder.load(source)
    except RecipeError as exc:
        return fail(str(exc))
    with opened(db_path) as db:
        kept = recipes.save(db, recipe)
    print(f"goalbot: imported recipe {kept.name} as v{kept.version} (goalbot recipe show {kept.name}); "
          "its secrets are typed only where --url or --allow-domain says, or after a GO")
    return 0


def _diff(db: sqlite_utils.Database, name: str, old: int, new: int) -> int:
    versions = [recipes.load(db, name, version) for version in (old, new)]
    for version, recipe in zip((old, new), versions):
        if recipe is None:
            return fail(f"no recipe {name} v{version} (goalbot recipe show {name} lists the latest)")
    before, after = (show(recipe, blocks=_blocks(db, recipe)).splitlines() for recipe in versions if recipe is not None)
    lines = list(difflib.unified_diff(before[1:], after[1:], f"{name} v{old}", f"{name} v{new}", lineterm=""))
    print("\n".join(lines) if lines else f"{name} v{old} and v{new} do the same")
    return 0


def _steps(args: argparse.Namespace) -> tuple[int, int] | None:
    first, _, last = str(args.steps).partition("-")
    if not first.isdigit() or last and not last.isdigit():
        return None
    return int(first), int(last or first)


def _script(db: sqlite_utils.Database, recipe: Recipe, path: Path) -> int:
    """`recipe export NAME FILE --as playwright`: the recipe, its blocks inlined, as a script."""
    target = path / f"{recipe.name}.py" if path.is_dir() else path
    try:
        writer = ScriptWriter(recipe, blocks_of(db, recipe))
        target.write_text(writer.script(target.name), encoding="utf-8")
        target.chmod(0o755)
    except BlockError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot write {target}: {exc.strerror or exc}")
    needs = " ".join([f"SECRET_{name}=…" for name in writer.secrets()] + ["python", str(target)]
                     + [f"--{name} …" for name in writer.variables])
    print(f"goalbot: wrote recipe {recipe.name} v{recipe.version} as a Playwright script: {needs}")
    return 0


def _block(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    steps = _steps(args)
    if steps is None:
        return fail(f"--steps {args.steps}: give a step's number or two, as 2 or 1-3 (goalbot recipe show {args.name})")
    try:
        caller, block = make_block(db, args.name, *steps, args.block_as, args.use, args.pin)
    except BlockError as exc:
        return fail(str(exc))
    kept = "kept as" if args.block_as else "run by"
    print(f"goalbot: steps {args.steps} of {caller.name} are {kept} block {block.name} v{block.version}; "
          f"{caller.name} v{caller.version} runs it (goalbot recipe show {caller.name})")
    return 0


def _loop(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    steps = _steps(args)
    if steps is None:
        return fail(f"--steps {args.steps}: give a step's number or two, as 2 or 1-3 (goalbot recipe show {args.name})")
    try:
        caller = make_loop(db, args.name, args.over, *steps, args.each)
    except LoopError as exc:
        return fail(str(exc))
    print(f"goalbot: steps {args.steps} of {caller.name} are one pass over each record of {args.over}; "
          f"{caller.name} v{caller.version} loops (goalbot recipe show {caller.name})")
    return 0


def _blocks(db: sqlite_utils.Database, recipe: Recipe) -> dict[str, Recipe]:
    """The blocks `show` draws; a missing one is drawn as missing."""
    try:
        return blocks_of(db, recipe)
    except BlockError:
        return {}


def _list(db: sqlite_utils.Database, as_json: bool = False) -> int:
    rows = recipes.listed(db)
    if as_json:
        print(json.dumps([{key: row[key] for key in ("name", "version", "steps", "actions", "goal")} for row in rows],
                         ensure_ascii=False))
        return 0
    if not rows:
        print("no recipes yet: goalbot run GOAL --save-recipe NAME, or goalbot recipe save SESSION NAME")
        return 0
    for row in rows:
        print(printable(f"{row['name']:<24} v{row['version']:<4} {row['steps']:>3} steps {row['actions']:>4} "
                        f"actions  {row['goal'][:60]}"))
    return 0


def _locators(target: Evidence) -> list[str]:
    return [f"{key}={value!r}" for key, value in (("test id", target.test_id), ("id", target.id),
            ("label", target.label), ("placeholder", target.placeholder), ("css", target.css)) if value]


def _readme(recipe: Recipe) -> str:
    """An exported recipe's README: the recipe in words, and how to use the folder."""
    needs = [f"--var {name}=…" for name in recipe.variables] + [f"--secret {name}=…" for name in recipe.secrets]
    blocks = [f"    goalbot recipe export {block.recipe} DIR  (on this machine; then import DIR there)"
              for block in recipe.blocks]
    first = ["Its blocks are other recipes: export and import them too:", *blocks, ""] if blocks else []
    return "\n".join([show(recipe), "", *first, "To use it:", "", "    goalbot recipe import THIS_FOLDER",
                      "    " + " ".join(["goalbot rerun", recipe.name, *needs, "[--url START_PAGE]"]), "",
                      "Its secrets are typed without asking only on the site of --url or of --allow-domain."])


def show(recipe: Recipe, healed: dict[int, Evidence] | None = None, blocks: dict[str, Recipe] | None = None) -> str:
    """The recipe in plain words: each step, each action with its locators (and what reruns found
    it by since, when it was healed), expectations and page; each block's steps drawn under it."""
    lines = [f"recipe {recipe.name} v{recipe.version}: {recipe.goal}", f"starts at {recipe.start_url}"]
    if recipe.variables:
        lines.append("variables: " + ", ".join(f"{{{{{name}}}}}" for name in recipe.variables))
    if recipe.secrets:
        lines.append("secrets: " + ", ".join(recipe.secrets))
    for name, policy in recipe.policies.items():
        needs = sorted(policy.variables())
        lines.append(f"policy {name}: {policy.words()}" + (f" (needs --var {', '.join(needs)})" if needs else ""))
    position = 0  # actions are numbered across the recipe, as a patch names them
    for number, step in enumerate(recipe.steps, 1):
        lines.append(f"{number}. {step.description}")
        if step.block is not None:
            lines += _block_lines(step.block, blocks or {}, "   ", (recipe.name,))
        if step.for_each is not None:
            lines.append(f"   for each record of {step.for_each.over} ({step.for_each.most} at most), in its row:")
            for n, action in enumerate(step.for_each.actions, 1):
                lines += _action_lines(action, f"[each.{n}]", None)
        if step.branches:
            lines.append("   way 1, unless another way's condition holds:")
        for action in step.actions:
            position += 1
            lines += _action_lines(action, f"[{position}]", healed.get(position) if healed else None)
        for way, branch in enumerate(step.branches, 2):
            lines.append(f"   way {way}, when {branch.when.words()}:")
            for n, action in enumerate(branch.actions, 1):
                lines += _action_lines(action, f"[{way}.{n}]", None)
    if recipe.result is not None:
        lines.append(f"the answer (--output-schema) reads: {_places_in_words(recipe.result)}")
    return printable("\n".join(lines))


def _block_lines(block: Block, blocks: dict[str, Recipe], indent: str, path: tuple[str, ...]) -> list[str]:
    """A block as a tree: its steps and their actions, nested blocks further in."""
    inner = blocks.get(block.key())
    if inner is None or block.recipe in path:
        return [f"{indent}└ {block.words()}: not in this store"]
    lines = [f"{indent}└ {block.words()}: {inner.name} v{inner.version}"]
    for number, step in enumerate(inner.steps, 1):
        lines.append(f"{indent}  {number}. {step.description}")
        if step.block is not None:
            lines += _block_lines(step.block, blocks, indent + "     ", (*path, block.recipe))
        for action in step.actions:
            lines.append(f"{indent}     {action.words()}")
    return lines


def _action_lines(action: RecipeAction, mark: str, healed: Evidence | None) -> list[str]:
    """One action of `show`: its words, locators, what it reads, its heal, its page and expectations."""
    lines = [f"   {mark} {action.words()}"]
    target = action.target
    if action.optional and target is not None:
        lines.append(f"     only when it is on the page: it dismissed the {target.overlay}")
    if target is not None:
        lines.append(f"     found by: {', '.join(_locators(target)) or 'role and name only'}")
    if action.reads is not None:
        lines.append(f"     reads: {_places_in_words(action.reads)}")
    if healed is not None:
        lines.append(f"     healed: now found by {', '.join(_locators(healed)) or 'role and name'}"
                     f" ({healed.role} {healed.name!r})")
    expect = action.expect.words()
    lines.append(f"     on a page at {action.fingerprint.url_contains!r}"
                 + (f"; expects: {'; '.join(expect)}" if expect else ""))
    return lines


def _places_in_words(recorded: Recorded) -> str:
    """Where an extraction reads, in a line: the page's JSON first, then each list's rows and
    fields, or that the model must."""
    network = f"the page's own data from {recorded.network.words()}" if recorded.network else ""
    if recorded.place is None:
        return network or "no places kept: the extractor reads the page each time"

    def words(place: dict[str, Any], name: str) -> list[str]:
        if place.get("document") == "ocr" and "records" in place:  # a table's rows, a chart's bars
            kept = place.get("fields")
            cells = ", ".join(f"{field} in cell {spot.get('cell')!r}" for field, spot in
                              (kept if isinstance(kept, dict) else {}).items() if isinstance(spot, dict))
            return [f"{place.get('records') or 'the list'} from each line of the page's pictures (OCR): {cells}"]
        if place.get("document") in ("pdf", "ocr"):
            where = "the downloaded PDF's" if place["document"] == "pdf" else "the page's pictures' (OCR)"
            fields = place.get("fields")
            lists = place.get("lists")
            return [f"{where} line {str(spot.get('after'))!r} for {field}"
                    for field, spot in (fields if isinstance(fields, dict) else {}).items() if isinstance(spot, dict)] \
                + [f"{where} lines shaped {shape_in_words(shape)!r} for {field or 'the list'}"
                   for field, shape in (lists if isinstance(lists, dict) else {}).items()]
        if "each" in place:
            fields = ", ".join(place.get("fields", {})) or "each value"
            return [f"{name or 'the list'} from rows {place['each']!r} ({fields})"]
        if "at" in place:
            return [f"{name} at {place['at']!r}"]
        if isinstance(place.get("any"), list):  # spots as steady as each other, which must agree
            spots = " and ".join(repr(spot.get("at")) for spot in place["any"] if isinstance(spot, dict))
            return [f"{name} at {spots}, alike"]
        return [part for key, sub in place.get("fields", {}).items() for part in words(sub, key)]

    drawn = "; ".join(words(recorded.place, ""))  # a recipe file may carry terminal escapes
    return f"{network}, else {drawn}" if network else drawn

"""Blocks: recipes other recipes run as steps (a sign-in, a search). Read from the store before a
rerun starts (each at its pinned version or its latest, nested ones too, a loop refused), the
site's sign-in recipe found for a session that expires mid-rerun, and a recipe's steps made into
a block."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from goalbot.agents.domains import host_of
from goalbot.recipes.model import MAX_BLOCK_DEPTH, Block, Recipe, RecipeStep
from goalbot.recipes.variables import names_in
from storage import recipes

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


class BlockError(ValueError):
    """A recipe's blocks cannot be run: one is missing, or they run in a circle."""


def blocks_of(db: sqlite_utils.Database, recipe: Recipe) -> dict[str, Recipe]:
    """Every block `recipe` runs, nested ones too, by `Block.key()`: what the rerun reads them from."""
    found: dict[str, Recipe] = {}

    def walk(caller: Recipe, path: tuple[str, ...]) -> None:
        for block in caller.blocks:
            if block.recipe in path:
                raise BlockError(f"recipe {path[0]} runs itself: {' → '.join([*path, block.recipe])}")
            if len(path) > MAX_BLOCK_DEPTH:
                raise BlockError(f"recipe {path[0]}'s blocks nest deeper than {MAX_BLOCK_DEPTH}: "
                                 f"{' → '.join([*path, block.recipe])}")
            kept = found.get(block.key()) or recipes.load(db, block.recipe, block.version)
            if kept is None:
                which = f" v{block.version}" if block.version else ""
                raise BlockError(f"recipe {caller.name} v{caller.version} runs block {block.recipe}{which}, "
                                 "which is not in this store (goalbot recipe list)")
            found[block.key()] = kept
            walk(kept, (*path, kept.name))

    walk(recipe, (recipe.name,))
    return found


def needs(recipe: Recipe, blocks: dict[str, Recipe]) -> tuple[list[str], list[str]]:
    """The variables and secrets a rerun of `recipe` must be given, its blocks' included: a block's
    variable its step does not bind takes the rerun's value of the same name."""
    variables, secrets = dict.fromkeys(recipe.variables), dict.fromkeys(recipe.secrets)

    def walk(caller: Recipe, depth: int) -> None:
        for block in caller.blocks:
            inner = blocks.get(block.key())
            if inner is None or depth > MAX_BLOCK_DEPTH:
                continue
            variables.update(dict.fromkeys(name for name in inner.variables if name not in block.values))
            secrets.update(dict.fromkeys(inner.secrets))
            walk(inner, depth + 1)

    walk(recipe, 0)
    return list(variables), list(secrets)


@dataclass
class SignIn:
    """The recipes a rerun may run when the site asks to sign in again (the one whose first
    element is on the wall runs); or why there is none."""

    recipes: list[Recipe]
    missing: str = ""


def sign_in_for(db: sqlite_utils.Database, recipe: Recipe, blocks: dict[str, Recipe], values: dict[str, str],
                secret_names: set[str] | None, recorded_here: Callable[[Recipe], bool]) -> SignIn:
    """The recipes that type a secret on `recipe`'s site: its own blocks first, then those recorded
    in this store (an imported one never: a file must not choose what a rerun types a password
    into), each with its variables and secrets at hand."""
    host = host_of(recipe.start_url)
    own = [block for block in blocks.values() if block.secrets and host_of(block.start_url) == host]
    stored = [other for other in recipes.latest_starting(db, lambda url: host_of(url) == host)
              if other.secrets and not other.blocks and other.name != recipe.name and recorded_here(other)]
    usable = [candidate for candidate in [*own, *stored] if all(name in values for name in candidate.variables)
              and (secret_names is None or all(name in secret_names for name in candidate.secrets))]
    if usable:
        return SignIn(usable)
    if own or stored:
        candidate = (own or stored)[0]
        wanted = [f"--var {n}=…" for n in candidate.variables if n not in values]
        wanted += [f"--secret {n}=…" for n in candidate.secrets if secret_names is not None and n not in secret_names]
        return SignIn([], f"recipe {candidate.name} signs in on {host} but needs {' '.join(wanted)}")
    return SignIn([], f"no recipe recorded in this store signs in on {host} (record one: goalbot run \"sign in\" "
                        "--url … --secret PW=… --save-recipe login)")


def make_block(db: sqlite_utils.Database, name: str, first: int, last: int, new: str | None, use: str | None,
               pin: bool) -> tuple[Recipe, Recipe]:
    """Steps `first`–`last` of recipe `name` become one step that runs a block: a new recipe `new`
    made of them, or the stored recipe `use`. Returns the caller's new version and the block."""
    caller = recipes.load(db, name)
    if caller is None:
        raise BlockError(f"no recipe {name} (goalbot recipe list)")
    if not 1 <= first <= last <= len(caller.steps):
        raise BlockError(f"recipe {name} has steps 1–{len(caller.steps)}; --steps {first}-{last} is not among them")
    taken = caller.steps[first - 1:last]
    if use is not None:
        block = recipes.load(db, use)
        if block is None:
            raise BlockError(f"no recipe {use} to use as a block (goalbot recipe list)")
    else:
        assert new is not None
        if recipes.latest_version(db, new):
            raise BlockError(f"there is a recipe {new} already: --use {new} runs it, or pick another name")
        texts = " ".join(step.model_dump_json() for step in taken)  # typed text, names, addresses, expectations
        try:
            made = Recipe(name=new, goal="; ".join(step.description for step in taken), start_url=_start_of(caller, first),
                          steps=taken, variables=[v for v in caller.variables if v in names_in(texts)],
                          secrets=[s for s in caller.secrets if f"<secret:{s}>" in texts],
                          source_session=caller.source_session)
        except ValidationError as exc:
            raise BlockError(f"--as {new}: {exc.errors()[0]['msg']}") from exc
        block = recipes.save(db, made)
    step = RecipeStep(description="; ".join(s.description for s in taken) if use is None else block.goal,
                      block=Block(recipe=block.name, version=block.version if pin else None))
    changed = caller.model_copy(update={"steps": [*caller.steps[:first - 1], step, *caller.steps[last:]]})
    blocks_of(db, changed)  # a block that runs this recipe would run in a circle: refused, nothing kept
    return recipes.save(db, changed), block


def _start_of(caller: Recipe, first: int) -> str:
    """Where the block's first step began: the caller's start page, or its address's path there."""
    if first == 1:
        return caller.start_url
    path = next((action.fingerprint.url_contains for action in caller.steps[first - 1].actions), "")
    start = urlsplit(caller.start_url)
    return urlunsplit((start.scheme, start.netloc, path or start.path, "", "")) if path else caller.start_url

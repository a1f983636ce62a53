"""A recipe's rerun, prepared in one place for every door: the recipe and its version found, its
variables and secrets checked, where its secrets may be typed decided, its start page checked —
all before anything starts."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.agents.domains import host_of
from goalbot.agents.options import RunOptions
from goalbot.recipes.model import Evidence, Recipe
from goalbot.recipes.rerun import Rerun
from goalbot.recipes.variables import fill
from goalbot.service.blocks import BlockError, SignIn, blocks_of, needs, sign_in_for
from goalbot.service.checks import check_start_url, domains_for
from goalbot.service.refusal import Refusal
from goalbot.service.run_setup import run_options
from goalbot.service.settings import Settings
from storage import recipes
from storage.db import StoreError, opened

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

VARS_HINT = 'over MCP or in a batch job: "vars": {"NAME": "VALUE"}'
SECRETS_HINT = "a batch takes them from --secrets-file; an MCP server from its own --secret flags"


class SecretsNeeded(Refusal):
    """A recipe types secrets the request did not bring: `names`, for a message that says which."""

    def __init__(self, recipe: str, names: list[str]) -> None:
        self.names = names
        super().__init__("bad_input", f"recipe {recipe} types secrets: pass " + _secret_flags(names), SECRETS_HINT)


def _secret_flags(names: list[str]) -> str:
    return " ".join(f"--secret {name}=…" for name in names)


@dataclass
class PreparedRerun:
    recipe: Recipe
    values: dict[str, str]
    healed: dict[int, Evidence]
    secrets_at: str | None
    options: RunOptions
    interstitials: list[Evidence]
    blocks: dict[str, Recipe]
    sign_in: SignIn

    def rerun(self) -> Rerun:
        return Rerun(recipe=self.recipe, values=self.values, healed=self.healed, secrets_at=self.secrets_at,
                     interstitials=self.interstitials, blocks=self.blocks, sign_ins=self.sign_in.recipes,
                     no_sign_in=self.sign_in.missing)


def interstitials_seen(db: sqlite_utils.Database, host: str) -> list[Evidence]:
    """The banners and dialogs dismissed on `host` by recipes recorded in this store (their optional
    actions' elements), for a rerun that meets one its own recording never saw. An imported recipe
    adds none: a file must not be able to make a rerun click what it names."""
    seen: dict[tuple[str, str, str], Evidence] = {}
    for other in recipes.latest_starting(db, lambda url: host_of(url) == host):
        if recorded_at(db, other) is None:
            continue
        for action in other.actions:
            if action.optional and action.target is not None:
                target = action.target
                seen.setdefault((target.role, target.name, target.overlay), target)
    return list(seen.values())


def recorded_at(db: sqlite_utils.Database, recipe: Recipe) -> str | None:
    """The recipe's start address when this store saw it recorded there: the session it names
    started on the same site. A file's own start_url is never trusted with secrets: an imported
    recipe types them only where --url or --allow-domain says, or after a GO."""
    row = db.execute("select url from sessions where id = ?", [recipe.source_session]).fetchone() \
        if recipe.source_session and db["sessions"].exists() else None
    recorded = host_of(row[0] or "") if row else ""
    return recipe.start_url if recorded and recorded == host_of(recipe.start_url) else None


def prepare_rerun(db_path: Path, settings: Settings, name: str, values: dict[str, str], secret_names: set[str] | None,
                  version: int | None = None, url: str | None = None, secrets_at: str | None = None) -> PreparedRerun:
    """The rerun of recipe `name` (its latest version, or `version`) with `values` for its
    variables and secrets named `secret_names` to type (None: they are checked where it runs, on a
    worker with its own); `url` a start page of the person's own,
    where its secrets may then be typed. `secrets_at`: where else they may be, when this store
    did not see it recorded (a worker's copy of the coordinator's recipe). A `Refusal` otherwise."""
    if not db_path.exists():  # a rerun reads its recipe: a mistyped --db must not make an empty store
        raise Refusal("not_found", f"no goalbot store at {db_path}, so no recipe {name} to rerun",
                      "pass the --db the recipe was recorded in")
    try:
        with opened(db_path) as db:
            recipe = recipes.load(db, name, version)
            healed = recipes.heals_of(db, recipe) if recipe else {}
            recorded = recorded_at(db, recipe) if recipe else None
            known = [str(row["name"]) for row in recipes.listed(db)] if recipe is None else []
            seen = interstitials_seen(db, host_of(fill(recipe.start_url, values))) if recipe else []
            blocks = blocks_of(db, recipe) if recipe else {}
            sign_in = sign_in_for(db, recipe, blocks, values, secret_names,
                                  lambda other: recorded_at(db, other) is not None) if recipe else SignIn([])
    except BlockError as exc:
        raise Refusal("bad_input", str(exc), "goalbot recipe show NAME draws its blocks") from exc
    except recipes.UnreadableRecipe as exc:
        raise Refusal("bad_input", str(exc), "goalbot recipe delete NAME removes it") from exc
    except StoreError as exc:
        raise Refusal("internal", str(exc)) from exc
    if recipe is None:
        which = f" v{version}" if version else ""
        close = difflib.get_close_matches(name, known, n=1) if not version else []
        maybe = f"; did you mean {close[0]}?" if close else ""
        raise Refusal("not_found", f"no recipe {name}{which} in {db_path}{maybe}",
                      "goalbot recipe list names them; over MCP, list_recipes")
    variables, secrets = needs(recipe, blocks)
    unfilled = [variable for variable in variables if variable not in values]
    if unfilled:
        raise Refusal("bad_input", f"recipe {recipe.name} needs " + " ".join(f"--var {n}=…" for n in unfilled),
                      VARS_HINT)
    missing = [secret for secret in secrets if secret_names is not None and secret not in secret_names]
    if missing:
        raise SecretsNeeded(recipe.name, missing)
    recipe.start_url = fill(recipe.start_url, values)
    start = url or recipe.start_url
    check_start_url(start, domains_for(settings.allow_domain, settings.allow_scheme))
    options = run_options(settings, fill(recipe.goal, values), start)
    return PreparedRerun(recipe=recipe, values=dict(values), healed=dict(healed),
                         secrets_at=url or recorded or secrets_at, options=options, interstitials=seen,
                         blocks=blocks, sign_in=sign_in)

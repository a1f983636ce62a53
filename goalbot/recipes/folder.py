"""A recipe as a folder in seed 002's layout, one JSON file per kind, for people and other programs:

    workflow.json      the steps, each action's op, args and expectations, keyed to its target
    actions.json       each target's preferred (cached) locator and what it is, in words
    selectors.json     each target's whole evidence: the strict locators and what a re-find scores
    fingerprints.json  the page each action starts on
    policies.json      choice policies by name: hard filters, scores, tie-breaks (seed 002 §5.4)
    README.md          the recipe in plain words
    summary.md         the report of the run that made this version (seed 002 §9), when stored
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from goalbot.recipes.build import RecipeError
from goalbot.agents.choosing import Policy, PolicyError, policies_of
from goalbot.recipes.model import (MAX_ACTIONS, MAX_PASSES, Block, Branch, Loop, Evidence, Expect, Fingerprint, Recipe, RecipeAction,
                                   RecipeStep, When)
from goalbot.text.regular_file import read_regular_text
from goalbot.text.strict_json import NotStrictJson, strict_loads

MAX_FILE_BYTES = 4_000_000  # a recipe of MAX_ACTIONS actions with their evidence fits well within

KINDS = ("workflow", "actions", "selectors", "fingerprints", "policies")


def _key(step: int, action: int) -> str:
    return f"s{step}a{action}"


def export(recipe: Recipe, folder: Path, readme: str, summary: str | None = None) -> list[Path]:
    """Writes the recipe's files into `folder` (made if needed); RecipeError when it cannot."""
    workflow: dict[str, Any] = {key: value for key, value in recipe.model_dump(mode="json").items()
                                if key not in ("steps", "policies")}
    workflow["steps"] = []
    actions: dict[str, Any] = {}
    selectors: dict[str, Any] = {}
    fingerprints: dict[str, Any] = {}

    def entry(key: str, action: RecipeAction) -> dict[str, Any]:
        """The action's workflow entry; its target and page go to their own files under `key`."""
        fingerprints[key] = {"urlContains": action.fingerprint.url_contains, "title": action.fingerprint.title}
        if action.target is not None:
            actions[key] = {"description": action.words(), "method": action.action.name,
                            "preferred": {"selector": action.target.css}}
            selectors[key] = action.target.model_dump(mode="json")
        expect = [{"kind": kind, "value": value}
                  for kind, value in action.expect.model_dump(exclude_defaults=True).items()]
        return {"id": key, "op": action.action.name, "targetKey": key if action.target else None,
                "args": action.action.args(), "expect": expect, **({"optional": True} if action.optional else {}),
                **({"reads": action.reads.model_dump(mode="json")} if action.reads else {})}

    for s, step in enumerate(recipe.steps, 1):
        entries = [entry(_key(s, a), action) for a, action in enumerate(step.actions, 1)]
        branches = [{"id": f"s{s}w{w}", "when": branch.when.model_dump(mode="json", exclude_defaults=True),
                     "actions": [entry(f"s{s}w{w}a{a}", action) for a, action in enumerate(branch.actions, 1)]}
                    for w, branch in enumerate(step.branches, 2)]
        workflow["steps"].append({"id": f"s{s}", "description": step.description, "actions": entries,
                                  **({"branches": branches} if branches else {}),
                                  **({"block": step.block.model_dump(mode="json")} if step.block else {}),
                                  **({"for_each": {"over": step.for_each.over, "most": step.for_each.most,
                                                   "actions": [entry(f"s{s}e{a}", action) for a, action
                                                               in enumerate(step.for_each.actions, 1)]}}
                                     if step.for_each else {})})
    files = {"workflow": workflow, "actions": actions, "selectors": selectors, "fingerprints": fingerprints,
             "policies": {name: policy.model_dump(mode="json") for name, policy in recipe.policies.items()}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for kind, content in files.items():
            path = folder / f"{kind}.json"
            path.write_text(json.dumps(content, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written.append(path)
        texts = {"README.md": readme + "\n", **({"summary.md": summary} if summary else {})}
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8")
            written.append(folder / name)
    except OSError as exc:
        raise RecipeError(f"cannot write the recipe into {folder}: {exc.strerror or exc}") from exc
    return written


def _read(folder: Path, kind: str, shape: type) -> Any:
    """One file of the folder, which is hostile input: a regular file, of bounded size, strict
    JSON (no NaN or Infinity, no absurd depth or digits), of the `shape` expected."""
    path = folder / f"{kind}.json"
    if not path.exists():
        raise RecipeError(f"{folder} is not a recipe folder: it has no {kind}.json")
    if not path.is_file():  # a FIFO would hang the import, a device would never end
        raise RecipeError(f"{path} is not a regular file")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RecipeError(f"{path} is over {MAX_FILE_BYTES // 1_000_000} MB: not a recipe goalbot wrote")
        text = read_regular_text(path, MAX_FILE_BYTES)  # a FIFO swapped in after the check: refused too
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeError(f"cannot read {path}: {exc}") from exc
    try:
        content = strict_loads(text, str(path), "a recipe")
    except NotStrictJson as exc:
        raise RecipeError(str(exc)) from exc
    if not isinstance(content, shape):
        raise RecipeError(f"{path} holds {type(content).__name__}, not the {shape.__name__} of a recipe")
    return content


def _policies(folder: Path, policies: dict[str, Any]) -> dict[str, Policy]:
    """The folder's policies.json, checked field by field."""
    try:
        return policies_of(policies, str(folder / "policies.json"))
    except PolicyError as exc:
        raise RecipeError(str(exc)) from exc


# Words a file could use to let an action past the person: risky actions ask whatever a recipe says.
_GATE_WORDS = {"safe", "risky", "isrisky", "notrisky", "allowrisky", "approved", "preapproved", "autoapprove",
               "autoapproved", "approval", "requireapproval", "requiresapproval", "needsapproval", "noapproval",
               "skipapproval", "confirm", "noconfirm", "skipconfirm", "trusted", "nogate", "skipgate", "safesteps",
               "safeactions", "approvedsteps", "approvedactions", "riskysteps", "riskyactions"}


def _no_gate_marks(folder: Path, workflow: dict[str, Any], policies: dict[str, Any]) -> None:
    """Refuses, by name, a recipe that tries to mark a step or an action safe or approved."""
    places: list[tuple[str, Any]] = [("workflow.json", workflow)]
    for s, step in enumerate(workflow.get("steps") or [], 1):
        if isinstance(step, dict):
            places.append((f"workflow.json step {s}", step))
            ways = [(f"step {s}", step)] + [(f"step {s} way {w}", way) for w, way in
                                            enumerate(step.get("branches") or [], 2) if isinstance(way, dict)]
            places += [(f"workflow.json {name}", way) for name, way in ways[1:]]
            places += [(f"workflow.json {name} condition", way.get("when")) for name, way in ways[1:]]
            places.append((f"workflow.json step {s} block", step.get("block")))
            loop = step.get("for_each")
            if isinstance(loop, dict):
                places.append((f"workflow.json step {s} loop", loop))
                ways.append((f"step {s} loop", loop))
            for name, way in ways:
                for a, entry in enumerate(way.get("actions") or [], 1):
                    if isinstance(entry, dict):
                        places += [(f"workflow.json {name} action {a}", entry),
                                   (f"workflow.json {name} action {a} args", entry.get("args"))]
    places += [(f"policies.json {name}", policy) for name, policy in policies.items()]
    places.append(("policies.json", {name: policy for name, policy in policies.items() if not isinstance(policy, dict)}))
    for where, place in places:
        if not isinstance(place, dict):
            continue
        for key in place:
            if isinstance(key, str) and key.lower().replace("_", "").replace("-", "") in _GATE_WORDS:
                raise RecipeError(f"{folder}: {where} marks a step safe or approved ({key!r}): a recipe cannot; "
                                  "its risky actions ask for a GO whatever the file says")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecipeError(f"{where} is {type(value).__name__}, not an object")
    return value


def load(folder: Path) -> Recipe:
    """The recipe a folder holds; RecipeError, with one line for the person, when it holds none."""
    if not folder.is_dir():
        raise RecipeError(f"{folder} is not a folder")
    workflow, selectors, fingerprints = (_read(folder, kind, dict) for kind in ("workflow", "selectors", "fingerprints"))
    # A folder written before policies has none.
    policies = _read(folder, "policies", dict) if (folder / "policies.json").exists() else {}
    _no_gate_marks(folder, workflow, policies)

    def recorded(entries: Any, where: str) -> list[RecipeAction]:
        """One way's actions, each read as hostile input."""
        if not isinstance(entries, list):
            raise RecipeError(f"{where}'s actions are {type(entries).__name__}, not a list")
        if len(entries) > MAX_ACTIONS:
            raise RecipeError(f"{folder}: {where} has over {MAX_ACTIONS} actions")
        made = []
        for a, entry in enumerate(entries, 1):
            entry = _object(entry, f"{where} action {a}")
            expect = {_object(item, f"{where} action {a} expect")["kind"]: item["value"]
                      for item in entry.get("expect", [])}
            target = entry.get("targetKey")
            printed = _object(fingerprints.get(entry["id"], {}), f"fingerprints.json {entry['id']}")
            made.append(RecipeAction(
                action={"name": entry["op"], **_object(entry.get("args", {}), f"{where} action {a} args")},
                target=Evidence.model_validate(selectors[target]) if target else None,
                expect=Expect.model_validate(expect),
                fingerprint=Fingerprint(url_contains=printed.get("urlContains", ""), title=printed.get("title", "")),
                reads=entry.get("reads"),
                optional=entry.get("optional") is True,  # only a JSON true makes a step optional
            ))
        return made

    try:
        steps = []
        for s, step in enumerate(workflow["steps"], 1):
            step = _object(step, f"step {s}")
            branches = [Branch(when=When.model_validate(_object(way, f"step {s} way {w}")["when"]),
                               actions=recorded(way["actions"], f"step {s} way {w}"))
                        for w, way in enumerate(step.get("branches") or [], 2)]
            block = Block.model_validate(_object(step["block"], f"step {s} block")) if "block" in step else None
            loop = _object(step["for_each"], f"step {s} loop") if "for_each" in step else None
            for_each = Loop(over=loop["over"], most=loop.get("most", MAX_PASSES),
                            actions=recorded(loop["actions"], f"step {s} loop")) if loop is not None else None
            steps.append(RecipeStep(description=step["description"], actions=recorded(step["actions"], f"step {s}"),
                                    branches=branches, block=block, for_each=for_each))
        header = {key: value for key, value in workflow.items() if key not in ("steps", "policies")}
        return Recipe.model_validate({**header, "steps": steps, "policies": _policies(folder, policies)})
    except (KeyError, TypeError, AttributeError) as exc:
        raise RecipeError(f"{folder}/workflow.json does not hold a recipe: missing or wrong {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise RecipeError(f"{folder} does not hold a valid recipe: {where}: {first['msg']}") from exc

"""`goalbot profile list|show|diff|pin`: the authoring profiles `goalbot tune` kept, and which one
runs use. A profile below its bar is pinned only with --force: the bar is the promotion rule."""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.service.profile_choice import OWN_PROMPTS, ProfileChoiceError, parse_version
from goalbot.service.settings import Settings
from goalbot.cli.terminal import fail
from goalbot.llm.profiles import AuthoringProfile, Metrics
from goalbot.text.eventfmt import printable
from storage import profiles
from storage.db import StoreError, connect

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


def cmd_profile(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    try:
        db = connect(db_path, create=db_path.exists())  # an older store gains the profiles tables
    except StoreError as exc:
        return fail(str(exc))
    try:
        return {"list": _list, "show": _show, "diff": _diff, "pin": _pin}[args.profile_command](db, args)
    except (ProfileChoiceError, profiles.UnreadableProfile) as exc:
        return fail(str(exc))
    finally:
        db.close()


def _load(db: sqlite_utils.Database, text: str) -> AuthoringProfile:
    version = parse_version(text)
    found = profiles.load(db, version)
    if found is None:
        raise ProfileChoiceError(f"there is no authoring-profile/v{version} in this store (goalbot profile list)")
    return found


def _list_json(db: sqlite_utils.Database, listed: list[int], pinned: int | None) -> int:
    shown = []
    for version in listed:
        try:
            p = profiles.load(db, version)
        except profiles.UnreadableProfile as exc:
            shown.append({"version": version, "unreadable": str(exc)})
            continue
        if p is not None:
            shown.append({"name": p.name, "version": version, "created_at": p.created_at, "score": p.score,
                          "before": p.before, "promoted": p.promoted, "model": p.model, "pinned": version == pinned})
    print(json.dumps(shown, ensure_ascii=False))
    return 0


def _list(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    pinned, listed = profiles.pinned(db), profiles.versions(db)
    if args.json:
        return _list_json(db, listed, pinned)
    if not listed:
        print("no authoring profiles yet: goalbot tune makes one")
        return 0
    print(f"{'':2}{'PROFILE':26}{'CREATED':18}{'SCORE':>7}{'BEFORE':>8}  {'PROMOTED':9}MODEL")
    for version in listed:
        try:
            p = profiles.load(db, version)
        except profiles.UnreadableProfile as exc:
            print(f"  authoring-profile/v{version}: {exc}")
            continue
        assert p is not None
        mark = "* " if version == pinned else "  "
        print(f"{mark}{p.name:26}{p.created_at[:16].replace('T', ' '):18}{p.score:7.2f}{p.before:8.2f}  "
              f"{'yes' if p.promoted else 'no':9}{printable(p.model)}")
    print("* pinned: runs use it" if pinned else "none pinned: runs use goalbot's own prompts")
    return 0


def _metrics(m: Metrics) -> str:
    return (f"score {m.score:.2f} (dry run {m.dry_run:.2f}, schema {m.schema_:.2f}, determinism {m.determinism:.2f}, "
            f"cost {m.cost:.2f}; {m.tasks} held out)")


def _show(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    p = _load(db, args.version)
    if args.json:
        print(p.model_dump_json(indent=2))
        return 0
    pinned = profiles.pinned(db) == p.version
    print(f"{p.name}{' (pinned)' if pinned else ''} · created {p.created_at[:19]}")
    print(f"score {p.score:.2f} on held-out tasks (before tuning {p.before:.2f}); bar {p.bar:.2f}: "
          f"{'promoted' if p.promoted else 'not promoted'}")
    print(f"tuned for {printable(p.model)} with {p.optimizer}, reflection by {printable(p.reflection_model)}; "
          f"{p.calls} model calls of a budget of {p.budget}, {p.tokens:,} tokens"
          + (f"; session {p.tune_session}" if p.tune_session else ""))
    w = p.weights
    print(f"score = {w.dry_run}·dry_run + {w.schema_}·schema + {w.determinism}·determinism − {w.cost}·cost")
    tasks = ", ".join(f"{k} {v}" for k, v in p.data.tasks.items())
    print(f"data: {tasks} tasks; {len(p.data.sessions)} sessions" + (f"; {p.data.spec_file}" if p.data.spec_file else ""))
    for name, program in p.programs.items():
        print(f"\n## {name}\nbefore: {_metrics(program.before)}\nafter:  {_metrics(program.after)}")
        print(f"learned from {len(program.train)} tasks, held out {', '.join(program.heldout)}")
        print(f"\n{printable(program.instructions)}")
        for example in program.examples:
            print(f"\nexample:\n{printable(example)}")
    return 0


def _diff(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    old, new = _load(db, args.old), _load(db, args.new)
    print(f"{old.name} → {new.name}: score {old.score:.2f} → {new.score:.2f}")
    for name in sorted(set(old.programs) | set(new.programs)):
        a, b = old.programs.get(name), new.programs.get(name)
        before = a.instructions.splitlines() if a else []
        after = b.instructions.splitlines() if b else []
        scores = f"{a.after.score if a else 0:.2f} → {b.after.score if b else 0:.2f}"
        lines = list(difflib.unified_diff(before, after, f"{old.name} {name}", f"{new.name} {name}", lineterm=""))
        print(f"\n## {name}: {scores}" + ("" if lines else " (instructions unchanged)"))
        for line in lines:
            print(printable(line))
    return 0


def _pin(db: sqlite_utils.Database, args: argparse.Namespace) -> int:
    if args.version.strip().lower() in OWN_PROMPTS:
        profiles.pin(db, None)
        print("no profile pinned: runs use goalbot's own prompts")
        return 0
    p = _load(db, args.version)
    if not p.promoted and not args.force:
        return fail(f"{p.name} scored {p.score:.2f}, below its bar of {p.bar:.2f}: it is not pinned "
                    "(--force pins it anyway)")
    profiles.pin(db, p.version, forced=not p.promoted)
    print(f"pinned {p.name}: runs and reruns use its instructions from now on"
          + (" (pinned with --force, below its bar)" if not p.promoted else ""))
    return 0


def add_profile_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    profile = sub.add_parser("profile", help="the authoring profiles goalbot tune kept, and the pinned one",
                             description="Authoring profiles (goalbot tune): list them, show one, diff two, "
                                         "pin the one runs use.")
    commands = profile.add_subparsers(dest="profile_command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="every profile, its score, and which is pinned",
                        description="Every authoring profile, its held-out score, and which one is pinned."
                        ).add_argument("--json", action="store_true", help="the profiles as one JSON array")
    show = commands.add_parser("show", help="a profile's instructions, examples, scores and data",
                               description="A profile's instructions, examples, scores and the data it saw.")
    show.add_argument("version", metavar="vN", help="the profile: vN")
    show.add_argument("--json", action="store_true", help="the whole profile as JSON")
    diff = commands.add_parser("diff", help="what changed in the instructions between two profiles",
                               description="What changed between two profiles: instructions and scores.")
    diff.add_argument("old", metavar="vA", help="the older profile")
    diff.add_argument("new", metavar="vB", help="the newer profile")
    pin = commands.add_parser("pin", help="runs use this profile from now on (none: goalbot's own prompts)",
                              description="Runs and reruns use this profile from now on; none: goalbot's own "
                                          "prompts. A profile below its bar needs --force.")
    pin.add_argument("version", metavar="vN|none", help="the profile, or none")
    pin.add_argument("--force", action="store_true", help="pin a profile below its bar")
    return profile

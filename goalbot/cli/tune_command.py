"""`goalbot tune`: the next authoring profile, tuned offline by GEPA on what this store recorded."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from goalbot.service.settings import Settings
from goalbot.cli.terminal import fail, has_terminal
from goalbot.text.eventfmt import printable
from storage.db import StoreError

if TYPE_CHECKING:  # dspy comes with goalbot.authoring.tuning: loaded only when tune runs
    from goalbot.authoring.bank import Bank
    from goalbot.authoring.tuning import TunePlan
    from goalbot.llm.profiles import AuthoringProfile, Program, Weights

DESCRIPTION = """\
Tunes the instructions of the three authoring programs — IntentToWorkflow (the planner's steps),
IntentToPolicy (its choice policies) and PatchPlanner (a rerun's patches) — with DSPy's GEPA, on
a bank of tasks built from this store: the plans and policies people approved, edited or turned
down, the patches that healed a rerun or failed, the plans of an eval's episodes judged by their
pages' rewards (--eval FILE.json), and --tasks FILE. Held-out tasks are kept apart
and only scored: score = 0.45·dry_run + 0.25·schema + 0.20·determinism − 0.10·cost. The result is
kept as authoring-profile/vN; runs use it once it is pinned (goalbot profile pin vN).

It needs a real model endpoint (--base-url, --model; --reflection-model for GEPA's reflection),
and it costs model calls: before it starts it says how many at most and about how many tokens,
and it never makes more than --budget calls. It never runs during a run, and opens no browser.
Needs the tune extra: pip install 'goalbot[tune]'."""


def cmd_tune(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.authoring.bank import BankError, build
    from goalbot.eval.scorecard import UnreadableScorecard

    try:
        judged = _judged(args.eval or [])
    except UnreadableScorecard as exc:
        return fail(str(exc))
    if args.show_bank:
        try:
            bank = build(db_path, args.tasks, judged)
        except (StoreError, BankError) as exc:
            return fail(str(exc))
        print(_bank_lines(bank))
        return 0
    if importlib.util.find_spec("dspy") is None or importlib.util.find_spec("gepa") is None:
        return fail("goalbot tune needs DSPy and GEPA: from a checkout, pip install -e '.[tune]'")
    from goalbot.authoring.round import Models, RoundSettings, run_round
    from goalbot.authoring.tuning import plan
    from goalbot.service.profile_choice import ProfileChoiceError
    from goalbot.llm.authored import prompt_file
    from goalbot.llm.client import ModelConfig, ModelError
    from goalbot.llm.probe import probe_endpoint
    from goalbot.llm.profiles import PART_OF, PROGRAMS
    from goalbot.llm.usage import PriceTable
    from storage.profiles import UnreadableProfile

    if args.budget < 1 or args.examples < 0 or args.cost_ceiling < 1:
        return fail("--budget and --cost-ceiling are 1 at least, and --examples 0 or more")
    if not 0 < args.heldout < 1:
        return fail("--heldout is a share of the tasks, between 0 and 1")
    try:
        round_settings = RoundSettings(budget=args.budget, bar=args.bar, weights=_weights(args.weights),
                                       examples=args.examples, cost_ceiling=args.cost_ceiling)
    except ValueError as exc:
        return fail(str(exc).splitlines()[0])
    try:
        bank = build(db_path, args.tasks, judged)
        start_profile = _start(db_path, args.start)
    except (StoreError, BankError, ProfileChoiceError, UnreadableProfile) as exc:
        return fail(str(exc))
    wanted = [p for p in PROGRAMS if not args.program or p in args.program]
    start = {p: _start_of(start_profile, p) or prompt_file(PART_OF[p]) for p in wanted}
    tune_plan = plan(bank, wanted, start, args.budget, args.heldout, args.examples)
    print(_estimate(bank, tune_plan, settings, args), file=sys.stderr)
    if not tune_plan.programs:
        return fail("nothing to tune: record more runs and reruns, or write tasks of your own (--tasks FILE)")
    reflector = args.reflection_model or settings.model
    problem = probe_endpoint(settings.base_url, settings.api_key.get_secret_value(),
                             [settings.model, reflector]).first("fail")
    if problem:
        return fail(problem)
    if not args.yes:
        if not has_terminal():
            return fail("nobody is here to agree to the cost above: pass --yes")
        if not _agreed():
            print("goalbot: nothing was tuned", file=sys.stderr)
            return 0
    config = ModelConfig(base_url=settings.base_url, model=settings.model, role_models={"reflector": reflector},
                         api_key=settings.api_key, timeout_s=settings.model_timeout_s)
    try:
        kept = run_round(db_path, bank, tune_plan, round_settings, Models(config, PriceTable(settings.prices)),
                         start_profile, lambda text: print(f"goalbot tune: {text}", file=sys.stderr, flush=True))
    except ModelError as exc:
        return fail(f"tuning stopped: {exc}")
    print(kept.model_dump_json() if args.json else _outcome(kept))
    return 0


def _judged(paths: list[Path]) -> dict[str, bool]:
    """Each episode's session, and whether its page judged it reached, from `goalbot eval --out`
    scorecards. Raises UnreadableScorecard naming the file."""
    from goalbot.eval.scorecard import Scorecard

    judged: dict[str, bool] = {}
    for path in paths:
        judged.update({e.session: e.success for e in Scorecard.read(path).episodes if e.session})
    return judged


def _bank_lines(bank: Bank) -> str:
    """Every task and what is known of it: what `tune` would learn from, with no model asked."""
    lines = [f"{_count(len(bank.tasks), 'task')}, from {_count(len(bank.sessions), 'stored session')}"
             + (f" and {bank.spec_file}" if bank.spec_file else "")]
    for task in bank.tasks:
        known = ["an answer that worked"] if task.answer else []
        known += [f"{len(task.avoid)} answer{'s' * (len(task.avoid) != 1)} turned down"] if task.avoid else []
        elements = task.gold.get("elements") or []
        known += [f"{len(elements)} element{'s' * (len(elements) != 1)} it should use"] if elements else []
        lines.append(f"  {task.program:9} {printable(task.id)}  ({task.source}): {', '.join(known) or 'no answer known'}")
    return "\n".join(lines)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _agreed() -> bool:
    try:
        return input("Go on? [y/N] ").strip().lower() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        return False


def _start(db_path: Path, wanted: str | None) -> AuthoringProfile | None:
    """The profile whose instructions the round starts from: --from's, else the pinned one."""
    from goalbot.service.profile_choice import ProfileChoiceError, parse_version
    from storage import profiles
    from storage.db import connect

    db = connect(db_path)  # made when there is none yet: the profile is kept there
    try:
        version = parse_version(wanted) if wanted else profiles.pinned(db)
        found = profiles.load(db, version) if version else None
    finally:
        db.close()
    if version and found is None:
        raise ProfileChoiceError(f"there is no authoring-profile/v{version} to start from (goalbot profile list)")
    return found


def _start_of(profile: AuthoringProfile | None, program: Program) -> str | None:
    found = profile.programs.get(program) if profile else None
    return found.instructions if found else None


def _weights(text: str | None) -> Weights:
    """`dry_run=0.5,schema=0.2,…`: the weights of the score; raises ValueError."""
    from goalbot.llm.profiles import Weights

    if not text:
        return Weights()
    given: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or name.strip() not in ("dry_run", "schema", "determinism", "cost"):
            raise ValueError(f"bad --weights {part!r}: name=number, for dry_run, schema, determinism, cost")
        try:
            given[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"bad --weights {part!r}: {value!r} is not a number") from None
    return Weights.model_validate(given)


def _estimate(bank: Bank, tune_plan: TunePlan, settings: Settings, args: argparse.Namespace) -> str:
    lines = [f"goalbot tune: {_count(len(bank.tasks), 'task')} in the bank, from "
             f"{_count(len(bank.sessions), 'stored session')}"
             + (f" and {bank.spec_file}" if bank.spec_file else "")]
    for p in tune_plan.programs:
        lines.append(f"  {p.program}: {len(p.train)} to learn from, {len(p.heldout)} held out · at most "
                     f"{p.calls} model calls, about {p.tokens:,} tokens")
    for program, why in tune_plan.skipped.items():
        lines.append(f"  {program}: not tuned — {why}")
    reflector = args.reflection_model or settings.model
    lines.append(f"  in all: at most {tune_plan.calls} calls (--budget {args.budget}), about {tune_plan.tokens:,} "
                 f"tokens, to {settings.model} (reflection: {reflector}) at {settings.base_url}")
    return "\n".join(lines)


def _outcome(profile: AuthoringProfile) -> str:
    lines = [f"{profile.name}: held-out score {profile.score:.2f} (the starting instructions: {profile.before:.2f}) "
             f"· {profile.calls} model calls, {profile.tokens:,} tokens"]
    for name, program in profile.programs.items():
        b, a = program.before, program.after
        lines.append(f"  {name:9} {b.score:.2f} → {a.score:.2f}  (dry run {a.dry_run:.2f}, schema {a.schema_:.2f}, "
                     f"determinism {a.determinism:.2f}, cost {a.cost:.2f}; {a.tasks} held out)")
    if profile.promoted:
        lines.append(f"promoted (≥ {profile.bar:.2f}): goalbot profile pin v{profile.version} makes runs use it")
    else:
        lines.append(f"below the bar ({profile.bar:.2f}): not promoted; goalbot profile pin v{profile.version} --force "
                     "would pin it anyway")
    return "\n".join(lines)


def add_tune_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    from goalbot.cli.flags import add_model_flags

    tune = sub.add_parser("tune", help="tune the authoring instructions with GEPA on what the store recorded",
                          description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    tune.add_argument("--tasks", type=Path, metavar="FILE", help="more tasks, one JSON object a line "
                      '({"program": "patch", "failure": …, "page": …, "expect": {"elements": [{"role", "name"}]}})')
    tune.add_argument("--eval", type=Path, action="append", metavar="FILE.json",
                      help="an eval's scorecard (goalbot eval --out): its episodes' sessions are judged by their "
                           "pages' rewards, not by how the run thought it ended (repeatable)")
    tune.add_argument("--budget", type=int, default=60, metavar="CALLS",
                      help="model calls at most, task and reflection together (default 60)")
    tune.add_argument("--reflection-model", metavar="MODEL", help="the model GEPA reflects with (default: --model)")
    tune.add_argument("--program", action="append", choices=("workflow", "policy", "patch"),
                      help="tune only this program (again for another); default all three")
    tune.add_argument("--from", dest="start", metavar="vN", help="start from this profile's instructions "
                      "(default: the pinned one's, else goalbot's own prompts)")
    tune.add_argument("--bar", type=float, default=0.82, help="the held-out score a profile is promoted at (0.82)")
    tune.add_argument("--weights", metavar="dry_run=W,schema=W,determinism=W,cost=W",
                      help="the score's weights (default 0.45, 0.25, 0.20, 0.10)")
    tune.add_argument("--cost-ceiling", type=int, default=6000, metavar="TOKENS",
                      help="the tokens of one call (in and out) that count as the whole cost term (default 6000)")
    tune.add_argument("--heldout", type=float, default=0.34, help="the share of tasks held out (default 0.34)")
    tune.add_argument("--examples", type=int, default=1, help="worked examples kept per program (default 1)")
    tune.add_argument("--yes", action="store_true", help="start without asking about the cost")
    tune.add_argument("--show-bank", action="store_true",
                      help="list the tasks the bank holds (failures included) and stop: no model is asked")
    tune.add_argument("--json", action="store_true", help="print the profile as JSON")
    add_model_flags(tune, roles=())
    return tune


"""`goalbot eval`: the bundled suite against the configured endpoint, scored."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from goalbot.cli.flags import add_authoring_flag, add_model_flags, add_settings
from goalbot.cli.terminal import fail, say
from goalbot.service.settings import Settings

if TYPE_CHECKING:  # the suite loads when eval runs, not with the parser
    from goalbot.eval.tasks import EvalTask

DESCRIPTION = """\
Runs a bundled suite against the configured model endpoint and scores it: MiniWoB++ pages from the
miniwob package, judged by MiniWoB's own reward on seeded episodes, and goalbot's demo tasks,
judged by the demo site's record. Each episode is a batch job in a slot (a kept browser, a fresh
context) and a stored session (goalbot report ID). No stored recipe is used: the model is measured.
The same --tasks, --episodes and --seed are the same problems, so two scorecards (--out) of two
models, dialects or authoring profiles compare episode by episode (--compare A.json B.json)."""


def add_eval_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="score the configured model on a bundled suite of tasks", description=DESCRIPTION)
    p.add_argument("--list", action="store_true", help="list the tasks and stop")
    p.add_argument("--tasks", metavar="NAME[,NAME]", help="only these tasks (default: all)")
    p.add_argument("--episodes", type=int, default=1, metavar="N", help="episodes per task (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="the first episode's seed (default 0)")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="episodes at once (default 2)")
    p.add_argument("--json", action="store_true", help="print the scorecard as one JSON document")
    p.add_argument("--out", type=Path, metavar="FILE.json", help="also write the scorecard here (for --compare)")
    p.add_argument("--markdown", type=Path, metavar="FILE.md",
                   help="also write a Markdown report, with its chart drawn as FILE.svg beside it")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("A.json", "B.json"),
                   help="compare two scorecards episode by episode, and stop")
    add_model_flags(p)
    add_authoring_flag(p)
    add_settings(p.add_argument_group("limits per episode"), "max_steps", "max_failures", "max_calls")


def cmd_eval(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.eval.tasks import ALL, UnknownTask, chosen

    if args.list:
        return _list(ALL, args.json)
    if args.compare:
        return _compare(args.compare[0], args.compare[1], args.json)
    if args.episodes < 1 or args.seed < 0 or not 1 <= args.workers <= 64:
        return fail("--episodes is 1 or more, --seed 0 or more, --workers 1 to 64")
    try:
        tasks = chosen([name.strip() for name in args.tasks.split(",") if name.strip()] if args.tasks else None)
    except UnknownTask as exc:
        return fail(str(exc))
    from goalbot.eval import render
    from goalbot.eval.miniwob_site import MiniwobMissing
    from goalbot.eval.running import EvalPlan, EvalRefused, run_eval
    from goalbot.eval.scorecard import EpisodeResult
    from goalbot.operators.base import OperatorError

    def heard(result: EpisodeResult, done: int, total: int) -> None:
        mark = "not run, not counted" if not result.ran else "ok" if result.success else "not reached"
        reward = "" if result.reward is None else f", reward {result.reward:+.2f}"
        say(f"eval {done}/{total}: {result.task} seed {result.seed}: {mark} ({result.status}{reward}), "
            f"{result.calls} call{'' if result.calls == 1 else 's'}, {result.seconds:.1f} s")

    plan = EvalPlan(tasks=tasks, episodes=args.episodes, seed=args.seed, workers=args.workers,
                    authoring_profile=args.authoring_profile)
    count = len(tasks) * args.episodes
    say(f"eval: {_many(count, 'episode')} of {_many(len(tasks), 'task')} against {settings.model} at "
        f"{settings.base_url}, {min(args.workers, count)} at once")
    try:
        card = run_eval(plan, settings, db_path, say, heard)
    except (EvalRefused, MiniwobMissing, OperatorError) as exc:
        return fail(str(exc))
    if card.stopped:
        say(f"eval: {card.stopped}; those not ended are marked not run, and the scorecard holds the rest")
    document = {**card.model_dump(mode="json"), "summary": card.summary()}
    if args.out:
        args.out.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if args.markdown:
        from goalbot.eval.chart import svg

        picture = args.markdown.with_suffix(".svg")  # beside it: the report names it by its own name
        picture.write_text(svg(card), encoding="utf-8")
        args.markdown.write_text(render.markdown(card, picture.name), encoding="utf-8")
    if args.json:
        print(json.dumps(document, ensure_ascii=False))
    else:
        print(render.terminal(card))
    return 130 if card.stopped else 0  # the shell's word for a command stopped with Ctrl-C


def _many(count: int, what: str) -> str:
    return f"{count} {what}" + ("" if count == 1 else "s")


def _list(tasks: Sequence[EvalTask], as_json: bool) -> int:
    if as_json:
        print(json.dumps([task.model_dump() for task in tasks]))
        return 0
    width = max(len(task.name) for task in tasks)
    for task in tasks:
        print(f"{task.name:<{width}}  {task.source:<8} {task.about}")
    print(f"{len(tasks)} tasks", file=sys.stderr)
    return 0


def _compare(first_path: Path, second_path: Path, as_json: bool) -> int:
    from goalbot.eval import render
    from goalbot.eval.compare import NothingPaired, compare
    from goalbot.eval.scorecard import Scorecard, UnreadableScorecard

    try:
        cards = [Scorecard.read(first_path), Scorecard.read(second_path)]
    except UnreadableScorecard as exc:
        return fail(str(exc))
    try:
        result = compare(cards[0], cards[1])
    except NothingPaired as exc:
        return fail(str(exc))
    if as_json:
        print(json.dumps({**result.model_dump(), "difference": result.difference, "beyond_noise": result.beyond_noise}))
    else:
        print(render.comparison(cards[0], cards[1], result))
    return 0

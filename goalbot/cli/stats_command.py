"""`goalbot stats`: seed 002 §12's operating figures over the stored runs, and whether its SLOs are met."""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

from goalbot.cli.terminal import fail
from goalbot.service.settings import Settings
from storage import batches
from storage.db import opened


def cmd_stats(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from storage.stats import stats

    if args.since is not None:
        try:
            date.fromisoformat(args.since)
        except ValueError:
            return fail(f"--since wants a day as YYYY-MM-DD, not {args.since!r}")
    with opened(db_path, create=False) as db:
        if args.batch and not batches.exists(db, args.batch):
            return fail(f"no batch {args.batch} in {db_path}")
        figures = stats(db, recipe=args.recipe, since=args.since, batch=args.batch)
    if args.json:
        print(figures.model_dump_json())
        return 0
    which = f"recipe {args.recipe}'s reruns" if args.recipe else "runs"
    which += f" of batch {args.batch}" if args.batch else ""
    print(f"{figures.runs} {which}" + (f" since {args.since}" if args.since else ""))
    if not figures.runs:
        return 0
    for label, value in (
            ("succeeded", f"{figures.succeeded:.0%}"), ("mean time", f"{figures.mean_seconds:.1f} s"),
            ("model calls per run", f"{figures.model_calls_per_run:.2f}"),
            ("tokens per run", f"{figures.tokens_per_run:,.0f}"), ("recipe reruns", str(figures.reruns)),
            ("reruns with no model call", f"{figures.no_model_share:.0%}"),
            ("patched by the model", f"{figures.patch_rate:.0%}"),
            ("patches per rerun", f"{figures.patches_per_rerun:.2f}"),
            ("healed within one patch", f"{figures.healed_within_one_patch:.0%}"),
            ("failed again after a patch", f"{figures.refail_after_patch:.0%}"),
            ("healing memory hits", f"{figures.memory_hit_rate:.0%}"),
            ("checkpoint wait", f"{figures.checkpoint_wait_seconds:.1f} s")):
        print(f"  {label:<28} {value}")
    if figures.rungs:
        found = " · ".join(f"{rung} {share:.0%}" for rung, share in figures.rungs.items())
        print(f"  {'elements found by':<28} {found}")
    if figures.extraction_rungs:
        read = " · ".join(f"{rung} {share:.0%}" for rung, share in figures.extraction_rungs.items())
        no_model = 1 - figures.extraction_rungs.get("model", 0.0)
        print(f"  {'extractions read by':<28} {read} (no model {no_model:.0%})")
    for slo in figures.slos:
        verdict = "no reruns yet" if slo.met is None else ("met" if slo.met else "NOT met")
        shown = "" if slo.value is None else f"{slo.value:.2f} " if "calls" in slo.name else f"{slo.value:.0%} "
        print(f"  SLO {slo.name} {slo.target}: {shown}{verdict}")
    return 0

"""`goalbot rerun NAME`: a recipe rerun with no model, prepared as every door prepares one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goalbot.agents.secrets import SecretError
from goalbot.cli.terminal import fail, refused
from goalbot.service.refusal import Refusal
from goalbot.cli.requests import run_request
from goalbot.service.reruns import prepare_rerun
from goalbot.service.settings import Settings


def cmd_rerun(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    from goalbot.cli.run_command import run_goal  # the browser's modules load only for a rerun

    try:
        request = run_request(args, settings.browser_path)
    except SecretError as exc:
        return fail(str(exc))
    try:
        prepared = prepare_rerun(db_path, settings, args.name, request.variables, set(request.secrets),
                                 version=args.version, url=args.url)
    except Refusal as refusal:
        return refused(refusal, request.json_result)
    recipe = prepared.recipe
    print(f"goalbot: rerunning recipe {recipe.name} v{recipe.version} ({len(recipe.actions)} actions, "
          "no model)", file=sys.stderr)
    return run_goal(request, settings, db_path, prepared.options, rerun=prepared.rerun())

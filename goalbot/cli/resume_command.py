"""`goalbot resume SESSION`: a session that was cut off, continued in the same session from its last
finished step (prepared by the service, `goalbot.service.resuming`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from goalbot.agents.secrets import SecretError
from goalbot.cli.requests import run_request
from goalbot.cli.run_command import run_goal
from goalbot.cli.terminal import fail
from goalbot.service.refusal import Refusal
from goalbot.service.resuming import give_back, prepare_resume
from goalbot.service.settings import Settings


def cmd_resume(args: argparse.Namespace, settings: Settings, db_path: Path) -> int:
    """Continues a session that was cut off, in the same session, from its last finished step."""
    try:
        # The flags given now win for what the person decides (say, --yes, --allow-risky).
        prepared = prepare_resume(db_path, settings, args.session, args.allow_risky, args.approval_timeout_s,
                                  args.base_url, args.model)
    except Refusal as refusal:
        return fail(refusal)
    try:
        request = run_request(args, prepared.settings.browser_path)
    except SecretError as exc:
        give_back(db_path, args.session)
        return fail(str(exc))
    if args.yes and args.ask:
        give_back(db_path, args.session)
        return fail("--yes and --ask say opposite things: give one")
    # The run's own --yes holds for its resume: asking again would stop, at the first new plan, a
    # run its person said should not stop to ask (and with no terminal, refuse to start at all).
    request.auto_approve = args.yes or (prepared.auto_approve and not args.ask)
    code = run_goal(request, prepared.settings, db_path, prepared.options, resume=prepared.point)
    if code == 2:  # it never started: another try may take it up
        give_back(db_path, args.session)
    return code

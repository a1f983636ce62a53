"""A goal typed in the dashboard (`goalbot` alone), started through the service layer as every door
starts one: the same checks, the same refusals, shown as a notice."""

from __future__ import annotations

import re
from pathlib import Path

from goalbot.service.checks import endpoint_refusal
from goalbot.service.ending import end_run
from goalbot.service.refusal import say_nothing
from goalbot.service.request import RunRequest
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start
from goalbot.service.wiring import wire_run
from tui.screens.run import LiveRun, Starter

URL = re.compile(r"https?://\S+")


def goal_starter(settings: Settings, db_path: Path) -> Starter:
    """What the dashboard does with a typed goal (a URL in it is where the browser starts); a
    `Refusal` when it cannot start. The endpoint is asked once, before the screen opens: the
    settings cannot change while it is open."""
    endpoint_problem = endpoint_refusal(settings, say_nothing)

    def start(goal: str) -> LiveRun:
        url = URL.search(goal)
        start = goal_start(db_path, settings, goal, url[0].rstrip(".,)") if url else None, {}, set(),
                           person_chooses=True)
        # A recipe the goal surely found needs no model; one it only may be asks the matcher.
        if endpoint_problem is not None and (start.rerun is None or start.rerun.unsure):
            raise endpoint_problem
        wiring = wire_run(RunRequest.typed_in(settings.browser_path), settings, db_path, start.options, can_ask=True,
                          rerun=start.rerun, probe_model=False)
        return LiveRun(wiring.bus, wiring.session, wiring.control,
                       finished=lambda result: end_run(wiring, db_path, result))

    return start

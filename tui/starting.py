"""A goal typed in the dashboard (`goalbot` alone), started through the service layer's one door as
every door starts one: the same checks, the same refusals (shown as a notice), and the pictures of
a run someone watches."""

from __future__ import annotations

import re
from pathlib import Path

from goalbot.service.request import RunRequest
from goalbot.service.runs import Audience, Door
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start
from tui.screens.run import LiveRun, Starter

URL = re.compile(r"https?://\S+")


def goal_starter(settings: Settings, db_path: Path) -> Starter:
    """What the dashboard does with a typed goal (a URL in it is where the browser starts); a
    `Refusal` when it cannot start."""
    door = Door(settings, db_path, Audience.HERE)

    def start(goal: str) -> LiveRun:
        url = URL.search(goal)
        start = goal_start(db_path, settings, goal, url[0].rstrip(".,)") if url else None, {}, set(),
                           person_chooses=True)
        started = door.start(RunRequest.typed_in(settings.browser_path), start.options, rerun=start.rerun)
        return LiveRun(started.bus, started.session, started.control, finished=started.end)

    return start

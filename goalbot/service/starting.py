"""A goal's run options, checked once for every door: the goal itself, the settings that shape the
run, and its start page."""

from __future__ import annotations

from goalbot.agents.options import RunOptions
from goalbot.llm.dialects import DialectError
from goalbot.service.checks import check_goal, check_start_url, domains_for
from goalbot.service.refusal import Refusal
from goalbot.service.run_setup import run_options
from goalbot.service.settings import Settings


def goal_options(settings: Settings, goal: str, url: str | None) -> RunOptions:
    """The options of a run of `goal` from `url`; a `Refusal` for an empty goal, a secret in it, a
    setting that cannot be read, or a start page off the allowed schemes or sites."""
    check_goal(goal)
    try:
        options = run_options(settings, goal, url)
    except DialectError as exc:
        raise Refusal("bad_input", str(exc)) from exc
    check_start_url(url, domains_for(settings.allow_domain, settings.allow_scheme))
    return options

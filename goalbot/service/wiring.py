"""Wiring one run: its bus feeds the store, its operator is guarded by its domains, its inbox takes
what `goalbot attach` says. The only place a `Session` is put together, for every door."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from goalbot.agents.control import SessionControl
from goalbot.agents.domains import Domains
from goalbot.agents.progress import ResumePoint
from goalbot.agents.risk import js_patterns
from goalbot.agents.secrets import SecretError, Secrets
from goalbot.agents.outcome import Run
from goalbot.agents.policies import SitePace
from goalbot.agents.session import RunOptions, Session
from goalbot.events import Bus
from goalbot.service.attach_inbox import CommandInbox
from goalbot.service.checks import check_start_url, domains_for, endpoint_refusal
from goalbot.service.profile_choice import ProfileChoiceError, authored_prompts
from goalbot.service.refusal import Refusal, Say, say_nothing
from goalbot.service.reports import store_report
from goalbot.service.request import RunRequest
from goalbot.service.run_setup import model_setup
from goalbot.service.settings import Settings
from goalbot.operators import desktop_read
from goalbot.operators.base import Operator, OperatorError
from goalbot.operators.browser.launch import SharedBrowser
from goalbot.operators.browser.operator import BrowserOperator
from goalbot.operators.browser.locate import BrowserNotFound, find_browser
from goalbot.operators.desktop_screen import check_display
from goalbot.operators.display import display_problem
from goalbot.recipes.rerun import Rerun
from goalbot.recipes.runner import RecipeRun
from storage import batches
from storage.db import mark_interrupted
from storage.pace import StorePace
from storage.recorder import Recorder


@dataclass
class Wiring:
    """One run, wired: its bus feeds the store, and its inbox takes what `goalbot attach` says."""

    bus: Bus
    session: Run
    control: SessionControl
    recorder: Recorder
    inbox: CommandInbox
    say: Say = field(default=say_nothing)

    @property
    def session_id(self) -> str:
        return self.session.session_id

    def close(self, db_path: Path) -> None:
        self.inbox.close()
        self.recorder.close()
        if self.recorder.failure is None:
            store_report(db_path, self.session_id, self.say)


def wire_run(
    request: RunRequest, settings: Settings, db_path: Path, options: RunOptions,
    can_ask: bool, resume: ResumePoint | None = None, rerun: Rerun | None = None, probe_model: bool = True,
    shared_browser: SharedBrowser | None = None, say: Say = say_nothing,
) -> Wiring:
    """The run, or with `rerun` the recipe's rerun (no model), wired the same way; a `Refusal`
    when it cannot start. The model endpoint is asked once before the browser starts, unless
    `probe_model` is off (it was asked). `shared_browser`: a batch slot's browser, the run's
    context taken in it. `say`: where lines for the person go (the door's)."""
    if settings.operator == "desktop":
        try:
            check_display()
        except OperatorError as exc:
            raise Refusal("bad_input", str(exc)) from exc
        desktop_read.warn_if_missing()
    else:
        _check_browser(request)
    secrets_at = resume.start_url if resume else rerun.secrets_at if rerun else options.url
    domains = domains_for(options.allow_domains, options.allow_schemes, secrets_at)
    check_start_url(options.url, domains)
    control = SessionControl(auto_approve=request.auto_approve, can_ask=can_ask)
    # A store that stops taking events stops the run: what is not stored did not happen.
    recorder = Recorder(db_path, on_failure=lambda _why: control.stop())
    for session_id in mark_interrupted(recorder.db):
        # An eval's episode ran against pages that ended with the eval: nothing to resume there.
        then = "" if batches.eval_of_session(recorder.db, session_id) else f" (goalbot resume {session_id})"
        say(f"session {session_id} was cut off; marked interrupted{then}")
    if resume is None:  # a resumed run asks with the prompts it began with (its options keep them)
        try:
            options = options.model_copy(update={"authored": authored_prompts(recorder.db, request.authoring_profile)})
        except ProfileChoiceError as exc:
            recorder.close()
            raise Refusal("bad_input", str(exc)) from exc
    bus = Bus()
    recorder.attach(bus)
    operator, secrets = _operator(request, settings, domains, shared_browser), Secrets(request.secret_values())
    pace = shared_pace(request.shared_pace, db_path)
    session: Run
    if rerun is not None:
        try:
            # Without a usable endpoint of its own a rerun asks the person where a patch would help.
            usable = settings.has_endpoint() and _endpoint_usable(settings, say)
            patcher = model_setup(settings) if usable else None
            session = RecipeRun(rerun, options, operator, bus, control, secrets, domains, patcher, pace)
        except SecretError as exc:
            recorder.close()
            raise Refusal("bad_input", str(exc)) from exc
    else:
        refusal = endpoint_refusal(settings, say) if probe_model else None
        if refusal is not None:
            recorder.close()
            raise refusal
        session = Session(options, operator, model_setup(settings), bus, control, secrets, domains, resume, pace)
    inbox = CommandInbox(db_path, session.session_id, control, said=say)
    inbox.start()
    return Wiring(bus=bus, session=session, control=control, recorder=recorder, inbox=inbox, say=say)


def shared_pace(where: str | None, db_path: Path) -> SitePace | None:
    """The pace per site this run shares with others, when a batch started it: the store's, or a
    broker's for the jobs of every worker."""
    where = where or ""
    if where.startswith(("redis://", "rediss://")):
        from goalbot.service.batch.broker_pace import BrokerPace

        return BrokerPace(where)
    return StorePace(db_path) if where == "store" else None


def _endpoint_usable(settings: Settings, say: Say) -> bool:
    refusal = endpoint_refusal(settings, say, wait_for_start=False)
    if refusal is not None:
        say(f"{refusal.message}; the rerun goes on without a model")
    return refusal is None


def _check_browser(request: RunRequest) -> None:
    """A browser that cannot be there is a bad flag, said before anything starts."""
    cdp_url = request.browser.cdp_url
    if cdp_url:
        parts = urlsplit(cdp_url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            raise Refusal("bad_input", f"--cdp-url {cdp_url!r} is not an address: give http://host:port (or ws://…) "
                              "of a Chromium started with --remote-debugging-port")
        return
    try:
        find_browser(request.browser.browser_path)
    except BrowserNotFound as exc:
        raise Refusal("bad_input", str(exc), "pass an existing --browser-path (or set GOALBOT_BROWSER)") from exc
    problem = None if request.browser.headless else display_problem()
    if problem is not None:
        raise Refusal("bad_input", f"a browser window needs a display, and {problem}",
                      "pass --headless, or fix DISPLAY")


def _operator(request: RunRequest, settings: Settings, domains: Domains, shared: SharedBrowser | None) -> Operator:
    if settings.operator == "desktop":
        from goalbot.operators.desktop import DesktopOperator

        return DesktopOperator(settings.monitor, settings.grid)
    return BrowserOperator(request.browser, allows=domains.allows, held_words=js_patterns(), shared=shared)

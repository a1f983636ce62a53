"""One crew: what every run is made of, built in one place, and the life every run has.

A `Session` (a goal with the model) and a `RecipeRun` (a recipe with no model) differ in what they
drive; they are made of the same collaborators — the emitter with the secrets' scrubber in front
of it from the start, the camera, the person, the guards and the hands, the model client when
there is one — and they begin and end the same way: bound to the person's control, announced,
driven, the browser and the client closed whatever happened, and one closing event.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Awaitable, Callable

from goalbot.agents.acting import Hands
from goalbot.agents.control import SessionControl
from goalbot.agents.domains import Domains
from goalbot.agents.ending import ended_by
from goalbot.agents.extractor import Extractor
from goalbot.agents.gathering import Gatherer
from goalbot.agents.guards import ActionGuards
from goalbot.agents.observing import Camera
from goalbot.agents.options import RunOptions
from goalbot.agents.outcome import SessionResult, Status, record_end
from goalbot.agents.person import Person
from goalbot.agents.policies import SitePace
from goalbot.agents.progress import ResumePoint
from goalbot.agents.secrets import Secrets
from goalbot.events import Bus, Emitter, new_session_id
from goalbot.llm.client import ModelClient, ModelSetup
from goalbot.llm.dialects import DialectChoice
from goalbot.llm.kept import KeptRequests
from goalbot.operators.base import Operator
from goalbot.operators.trace_scrub import scrubbed_trace

LAST_LOOK_S = 15.0  # a failed run's last look is evidence: a page that hangs is not waited for longer


class Crew:
    def __init__(self, options: RunOptions, operator: Operator, bus: Bus, control: SessionControl,
                 secrets: Secrets | None = None, domains: Domains | None = None, model: ModelSetup | None = None,
                 resume: ResumePoint | None = None, pace: SitePace | None = None) -> None:
        """`model`: the endpoint the run may ask (a rerun without one asks the person instead);
        `resume`: the cut-off session this run continues, under the same id; `pace`: the pace
        per site this run shares with others."""
        self.options, self.operator, self.control = options, operator, control
        self.secrets = secrets or Secrets()
        self.domains = domains or Domains(options.allow_domains, options.url, options.allow_schemes)
        # Nothing that leaves the process — events, prompts — may carry a secret's value.
        if resume is not None:
            self.emitter = Emitter(bus, resume.session_id, start_seq=resume.last_seq,
                                   start_artifact=resume.last_artifact, scrub=self.secrets.scrub)
        else:
            self.emitter = Emitter(bus, new_session_id(), scrub=self.secrets.scrub)
        self.camera = Camera(operator, self.emitter, "every" if options.vision else options.pictures)
        self.person = Person(self.emitter, control, self.secrets, self.camera, options.approval_timeout_s,
                             options.allow_risky)
        self.client = ModelClient(model.config, self.emitter, model.prices, model.limits,
                                  ask_budget=self.person.allow_more, redact=self.secrets.scrub) if model else None
        self.requests = KeptRequests(self.emitter, self.secrets.scrub)
        guards = ActionGuards(options.policy, operator, self.emitter, self.person, self.domains, pace)
        self.hands = Hands(operator, guards, control, self.secrets, self.emitter)
        # One choice of dialects per run: what one role learned of the endpoint, every role knows.
        self.dialects = DialectChoice(options.dialects)
        extractor = Extractor(self.client, self.dialects, vision=options.vision) if self.client else None
        self.gatherer = Gatherer(operator, self.emitter, self.hands, self.person, extractor,
                                 options.schemas, options.choice_policies, options.variables)

    @property
    def session_id(self) -> str:
        return self.emitter.session_id

    async def _keep_evidence(self, result: SessionResult | None) -> None:
        """A run that did not end well ends on a look with its picture, whoever watched (not one the
        person stopped: they want it to end now), then its trace is kept."""
        failed = result is None or result.status is not Status.OK
        # Evidence, never a reason for a run to end otherwise: a dead browser gives none.
        if failed and not self.control.stop_requested and self.camera.pictures != "every":
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.camera.look(None, seen=True, told=True), LAST_LOOK_S)
        with contextlib.suppress(Exception):
            # A file the page began to download after its click had ended is the run's all the same.
            for saved in await asyncio.wait_for(self.operator.late_downloads(), LAST_LOOK_S):
                self.hands.keep(saved)
        with contextlib.suppress(Exception):
            trace = await self.operator.kept_trace(failed)
            # A stored artifact like any other: scrubbed first, and not kept at all if it cannot be.
            if trace and self.secrets.names():
                trace = await asyncio.to_thread(scrubbed_trace, trace, self.secrets.scrub)
            if trace:
                self.emitter.artifact("trace", "application/zip", trace, name="trace.zip")

    async def live(self, announce: Callable[[], None], drive: Callable[[], Awaitable[SessionResult]]) -> SessionResult:
        """The run's life: bound to the person's control (so a stop reaches it), announced, driven
        to its end — whatever ends it — then the browser and the client closed and the end stored."""
        self.control.bind()
        announce()
        result: SessionResult | None = None
        try:
            result = await drive()
        except BaseException as exc:
            result = ended_by(exc, self.control.stop_reason)
        finally:
            await asyncio.shield(self._keep_evidence(result))
            self.requests.flush()
            await asyncio.shield(self.operator.close())
            if self.client is not None:
                await asyncio.shield(self.client.close())
        return record_end(self.emitter, self.secrets.scrub, result)

"""The one way every door starts a run. The door says who watches it — someone here, someone who
attaches, an MCP host, nobody — and one table says what that means: which screenshots the run
keeps, whether it may ask a person, and whether the endpoint is asked before it starts. A started
run always ends itself: its report written, its recipe or heals kept, its store closed."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from goalbot.agents.control import SessionControl
from goalbot.agents.outcome import Run, SessionResult
from goalbot.agents.progress import ResumePoint
from goalbot.agents.session import RunOptions
from goalbot.events import Bus
from goalbot.operators.browser.launch import SharedBrowser
from goalbot.recipes.rerun import Rerun
from goalbot.service.checks import endpoint_refusal
from goalbot.service.ending import end_run
from goalbot.service.refusal import Refusal, Say, say_nothing
from goalbot.service.request import RunRequest
from goalbot.service.settings import Settings
from goalbot.service.wiring import Wiring, wire_run


class Audience(StrEnum):
    HERE = "here"  # a person at the dashboard, who sees every look
    CONSOLE = "console"  # a person reading printed events at this terminal, who answers there
    ATTACHED = "attached"  # a person who answers through `goalbot attach`
    HOST = "host"  # an MCP host, which may look at any moment and relays questions
    CALLER = "caller"  # a program whose callback answers (the Python API)
    NOBODY = "nobody"  # a batch job, an eval episode, a script without callbacks


@dataclass(frozen=True)
class Watching:
    """What an audience means for a run."""

    # "every": each look keeps its screenshot (someone sees them live); "paced": a few, for a host
    # that may look at any moment; None: what the settings keep for the store's replay.
    pictures: Literal["every", "paced"] | None
    can_ask: bool  # a GO, a question, a plan can reach a person
    probe_each_start: bool  # the endpoint is asked before every run, not once for the door


AUDIENCES: dict[Audience, Watching] = {
    Audience.HERE: Watching(pictures="every", can_ask=True, probe_each_start=False),
    Audience.CONSOLE: Watching(pictures=None, can_ask=True, probe_each_start=False),
    Audience.ATTACHED: Watching(pictures="every", can_ask=True, probe_each_start=False),
    Audience.HOST: Watching(pictures="paced", can_ask=True, probe_each_start=True),
    Audience.CALLER: Watching(pictures=None, can_ask=True, probe_each_start=False),
    Audience.NOBODY: Watching(pictures=None, can_ask=False, probe_each_start=False),
}


class StartedRun:
    """A run wired and ready: `drive()` runs it to its end and ends it; a door that drives the
    session itself (the dashboard, the printed console) calls `end(result)` once it is over."""

    def __init__(self, wiring: Wiring, db_path: Path, save_as: str | None, variables: dict[str, str]) -> None:
        self._wiring, self._db_path, self._save_as, self._variables = wiring, db_path, save_as, variables
        self._ended = threading.Lock()
        self._done = False

    @property
    def bus(self) -> Bus:
        return self._wiring.bus

    @property
    def session(self) -> Run:
        return self._wiring.session

    @property
    def control(self) -> SessionControl:
        return self._wiring.control

    @property
    def session_id(self) -> str:
        return self._wiring.session_id

    @property
    def store_failure(self) -> str | None:
        """Why the store stopped taking the run's events, when it did: what is not stored did not happen."""
        return self._wiring.recorder.failure

    async def drive(self) -> SessionResult:
        result: SessionResult | None = None
        try:
            result = await self._wiring.session.run()
            return result
        finally:
            await asyncio.shield(asyncio.to_thread(self.end, result))

    def end(self, result: SessionResult | None) -> None:
        """Closes the run and keeps what it leaves; once, whoever calls it first."""
        with self._ended:
            if self._done:
                return
            self._done = True
        end_run(self._wiring, self._db_path, result, self._save_as, self._variables)


class Door:
    """One door's way to start runs, for one audience. The endpoint is asked before a planned run
    starts until it has answered once (a host's door asks before every run): a door that found it
    dead asks again next time, one that found it alive does not ask again."""

    def __init__(self, settings: Settings, db_path: Path, audience: Audience, say: Say = say_nothing,
                 endpoint_known: bool = False) -> None:
        self.settings, self.db_path, self.audience, self.say = settings, db_path, audience, say
        self.watching = AUDIENCES[audience]
        self._endpoint_answered = endpoint_known

    def endpoint_problem(self) -> Refusal | None:
        """The endpoint asked, unless it answered this door already; None when it answers."""
        if self._endpoint_answered and not self.watching.probe_each_start:
            return None
        refusal = endpoint_refusal(self.settings, self.say)
        self._endpoint_answered = refusal is None
        return refusal

    def start(self, request: RunRequest, options: RunOptions, rerun: Rerun | None = None,
              resume: ResumePoint | None = None, shared_browser: SharedBrowser | None = None) -> StartedRun:
        """The run wired for this door's audience; a `Refusal` when it cannot start."""
        if self.watching.pictures is not None:
            options = options.model_copy(update={"pictures": self.watching.pictures})
        if rerun is not None and rerun.unsure:  # its matcher asks the model before anything runs
            refusal = self.endpoint_problem()
            if refusal is not None:
                raise refusal
        # A planned run's endpoint is asked once the browser and the start address are known good.
        probe = rerun is None and (self.watching.probe_each_start or not self._endpoint_answered)
        wiring = wire_run(request, self.settings, self.db_path, options, self.watching.can_ask, resume, rerun,
                          probe_model=probe, shared_browser=shared_browser, say=self.say)
        self._endpoint_answered = self._endpoint_answered or probe
        return StartedRun(wiring, self.db_path, request.save_recipe, request.variables)

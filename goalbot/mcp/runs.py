"""The runs an MCP server started: each a stored session started through the service layer as every
door starts one (its events go to the store, `goalbot attach` reaches it), driven as a task on the
server's own event loop, in a browser of its own. What a host may not say is decided here, by the
server's rules: a run started over MCP asks the person for its plan and its risky actions unless
the server was started otherwise, and no argument a model fills in can change that. Each run
belongs to the client that started it: another client neither sees nor steers it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, SecretStr

from goalbot.agents.options import RunOptions
from goalbot.agents.outcome import SessionResult, Status
from goalbot.events import Event, EventType, utc_now
from goalbot.llm.extraction import SchemaError, checked
from goalbot.mcp.access import STDIO
from goalbot.mcp.models import HostRunStatus, Problem, RunLine, RunView, Waiting
from goalbot.operators.browser.options import BrowserOptions
from goalbot.payloads import ApprovalData, ExtractedData, GoalStatusData, PlanData, QuestionData, StepData
from goalbot.recipes.rerun import Rerun
from goalbot.service.refusal import Refusal
from goalbot.service.request import RunRequest
from goalbot.service.reruns import prepare_rerun
from goalbot.service.runs import Audience, Door, StartedRun
from goalbot.service.settings import Settings
from goalbot.service.starting import goal_start
from goalbot.text.eventfmt import printable, summary
from storage import queries
from storage.db import StoreError, opened

KEPT_LINES = 8  # event lines get_run returns: enough to see where a run is, never a whole log
HOST_GONE = "the MCP host disconnected"


class ProblemError(ToolError):
    """An anticipated failure: the host's model reads `{"code", "message", "hint"}`, never a traceback."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(json.dumps(problem.model_dump(), ensure_ascii=False))
        self.problem = problem

    @classmethod
    def of(cls, refusal: Refusal) -> ProblemError:
        return cls(Problem(code=refusal.code, message=refusal.message, hint=refusal.hint))


def not_found(run_id: str) -> ProblemError:
    """The same answer for a run that does not exist and one of another client's: nothing to learn."""
    return ProblemError(Problem(code="not_found", message=f"no run {run_id}", hint="list_runs names them"))


class HostRules(BaseModel):
    """The server's own configuration: what a host's model can never switch on."""

    approve_plans: bool = Field(False, description="--approve-plans: plans run without asking the person.")
    allow_risky: bool = Field(False, description="--allow-risky: risky actions GO without asking.")
    headless: bool = True
    cdp_url: str | None = Field(None, description="--cdp-url: every run's browser context comes from that Chromium.")
    secrets: dict[str, SecretStr] = Field(default_factory=dict, description="--secret: what `<secret:NAME>` types.")
    all_sessions: bool = Field(False, description="--all-sessions: clients list and read the store's sessions "
                                                  "from elsewhere too (never steer them).")


@dataclass
class Live:
    """One run of this server, followed as its events come."""

    run: StartedRun
    goal: str
    owner: str
    started_at: str = field(default_factory=lambda: utc_now().isoformat())
    task: asyncio.Task[SessionResult] | None = None
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_LINES))
    step: str = ""
    percent: int = 0
    waiting: Event | None = None
    result: SessionResult | None = None
    extracted: ExtractedData | None = None
    calls: int = 0
    listeners: list[asyncio.Queue[Event | None]] = field(default_factory=list)

    def seen(self, event: Event) -> None:
        self.lines.append(printable(f"{event.type.value}: {summary(event)}")[:300])
        match event.type, event.payload:
            case EventType.STEP_START, StepData() as step:
                self.step = step.description
            case EventType.GOAL_STATUS, GoalStatusData() as status:
                self.percent = status.progress_percent
            case EventType.PLAN_PROPOSED, PlanData(asks_approval=True):
                self.waiting = event
            case EventType.APPROVAL_REQUEST, ApprovalData():
                self.waiting = event
            case EventType.ASK_USER, QuestionData():
                self.waiting = event  # answered with goalbot attach: an answer may be a secret
            case (EventType.PLAN_APPROVED | EventType.PLAN_REJECTED | EventType.APPROVAL_GRANTED
                  | EventType.APPROVAL_DENIED | EventType.USER_REPLY, _):
                self.waiting = None
            case EventType.EXTRACTED, ExtractedData() as read if read.key == "result":
                self.extracted = read
            case EventType.LLM_CALL, _:
                self.calls += 1
        for queue in self.listeners:
            queue.put_nowait(event)

    @property
    def answer(self) -> Any:
        """What the run found: data that fit its output schema, else its answer in words; None until it ends."""
        if self.result is None:
            return None
        return self.extracted.data if self.extracted and self.extracted.valid else self.result.answer or None

    @property
    def status(self) -> HostRunStatus:
        if self.result is not None:
            return self.result.status.value  # type: ignore[return-value]
        return "waiting_for_person" if self.waiting is not None else "running"


def digest_of(run_id: str, event: Event) -> str:
    """The one question a person's answer is bound to: minted here, never taken from a caller."""
    return hashlib.sha256(f"{run_id}:{event.seq}:{event.type.value}:{event.data}".encode()).hexdigest()[:12]


def waiting_of(event: Event) -> Waiting:
    match event.type, event.payload:
        case EventType.PLAN_PROPOSED, PlanData() as plan:
            return Waiting(kind="plan", what="approve the plan: " + " · ".join(plan.steps))
        case EventType.APPROVAL_REQUEST, ApprovalData() as asked:
            return Waiting(kind=asked.kind, what=asked.what, where=asked.where, risky=asked.risky)
        case EventType.ASK_USER, QuestionData() as question:
            return Waiting(kind="question", what=question.question)
    return Waiting(kind="question", what=summary(event))


class RunBook:
    def __init__(self, settings: Settings, db_path: Path, rules: HostRules) -> None:
        self.settings, self.db_path, self.rules = settings, db_path, rules
        self.live: dict[str, Live] = {}
        # The host may look at any moment (get_run's screenshot resource): its runs keep paced pictures.
        self.door = Door(settings, db_path, Audience.HOST)

    def _request(self) -> RunRequest:
        browser = BrowserOptions(headless=self.rules.headless, browser_path=self.settings.browser_path,
                                 cdp_url=self.rules.cdp_url)
        return RunRequest(auto_approve=self.rules.approve_plans, browser=browser, secrets=dict(self.rules.secrets))

    async def start_goal(self, goal: str, url: str | None, output_schema: dict[str, Any] | None, owner: str) -> Live:
        try:
            start = await anyio.to_thread.run_sync(
                lambda: goal_start(self.db_path, self.settings, goal, url, {}, set(self.rules.secrets),
                                   use_recipes=output_schema is None, person_chooses=not self.rules.approve_plans))
        except Refusal as refusal:
            raise ProblemError.of(refusal) from refusal
        options = start.options
        if output_schema is not None:
            try:
                options.output_schema = checked(output_schema, "output_schema")
            except SchemaError as exc:
                raise ProblemError(Problem(code="bad_input", message=str(exc),
                                           hint="give a JSON Schema object (draft 2020-12)")) from exc
        return await self._start(goal, options, start.rerun, owner)

    async def start_rerun(self, name: str, values: dict[str, str], owner: str) -> Live:
        try:
            prepared = prepare_rerun(self.db_path, self.settings, name, values, set(self.rules.secrets))
        except Refusal as refusal:
            raise ProblemError.of(refusal) from refusal
        return await self._start(prepared.options.goal, prepared.options, prepared.rerun(), owner)

    async def _start(self, goal: str, options: RunOptions, rerun: Rerun | None, owner: str) -> Live:
        options = options.model_copy(update={"allow_risky": self.rules.allow_risky})
        try:  # the endpoint's answer and the browser's start are waited for off the server's loop
            started = await anyio.to_thread.run_sync(self.door.start, self._request(), options, rerun)
        except Refusal as refusal:
            raise ProblemError.of(refusal) from refusal
        live = Live(run=started, goal=goal, owner=owner)
        started.bus.subscribe(live.seen)
        self.live[started.session_id] = live
        live.task = asyncio.create_task(self._drive(live))
        return live

    async def _drive(self, live: Live) -> SessionResult:
        try:
            live.result = await live.run.drive()
        finally:
            if live.result is None:
                live.result = SessionResult(status=Status.FAILED, reason="the run ended unexpectedly")
            for queue in live.listeners:
                queue.put_nowait(None)
        return live.result

    async def follow(self, live: Live) -> AsyncIterator[Event]:
        """The run's events from now until it ends."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        live.listeners.append(queue)
        try:
            if live.waiting is not None:
                yield live.waiting
            while live.result is None:
                event = await queue.get()
                if event is None:
                    break
                yield event
        finally:
            live.listeners.remove(queue)

    def owned(self, run_id: str, owner: str) -> Live | None:
        live = self.live.get(run_id)
        return live if live is not None and live.owner == owner else None

    def readable(self, run_id: str, owner: str) -> bool:
        """Whether `owner` may read the run: its own, or any stored one on a server that shares them."""
        shares = self.rules.all_sessions or owner == STDIO  # over stdio the process is the boundary
        return self.owned(run_id, owner) is not None or (shares and run_id not in self.live)

    def state(self, run_id: str, owner: str) -> RunView:
        live = self.owned(run_id, owner)
        if live is not None:
            result = live.result
            return RunView(run_id=run_id, goal=live.goal, status=live.status, step=live.step,
                           progress_percent=live.percent, last_events=list(live.lines),
                           waiting=waiting_of(live.waiting) if live.waiting else None,
                           result=live.answer, reason=result.reason if result else "",
                           model_calls=live.calls, screenshot_uri=f"goalbot://runs/{run_id}/screenshot")
        if not self.readable(run_id, owner):
            raise not_found(run_id)
        try:
            with opened(self.db_path) as db:
                row = queries.session_row(db, run_id)
                events = queries.session_events(db, run_id)[-KEPT_LINES:] if row else []
        except StoreError as exc:
            raise ProblemError(Problem(code="internal", message=str(exc))) from exc
        if row is None:
            raise not_found(run_id)
        status = row.status if row.status in ("ok", "failed", "cancelled", "interrupted") else "running"
        return RunView(run_id=run_id, goal=row.goal, status=status,  # type: ignore[arg-type]
                       last_events=[printable(f"{e.type.value}: {summary(e)}")[:300] for e in events],
                       result=row.answer, reason=row.finish_reason or "",
                       screenshot_uri=f"goalbot://runs/{run_id}/screenshot")

    def listed(self, owner: str, limit: int) -> list[RunLine]:
        """The runs `owner` started here, newest first; with --all-sessions (or over stdio) the
        store's too."""
        if self.rules.all_sessions or owner == STDIO:
            try:
                with opened(self.db_path) as db:
                    rows = queries.list_sessions(db, limit=limit)
            except StoreError as exc:
                raise ProblemError(Problem(code="internal", message=str(exc))) from exc
            return [RunLine(run_id=row.id, goal=printable(row.goal)[:200], status=row.status,
                            started_at=row.started_at) for row in rows if self.readable(row.id, owner)]
        mine = [live for live in self.live.values() if live.owner == owner]
        return [RunLine(run_id=live.run.session_id, goal=printable(live.goal)[:200], status=live.status,
                        started_at=live.started_at) for live in reversed(mine)][:limit]

    def cancel(self, run_id: str, owner: str) -> RunView:
        live = self.owned(run_id, owner)
        if live is None:
            self.state(run_id, owner)  # not_found, or a run of another process
            raise ProblemError(Problem(code="not_running", message=f"run {run_id} is not running in this server",
                                       hint="a run of another process stops from its dashboard or goalbot attach"))
        live.run.control.stop()
        return self.state(run_id, owner)

    async def close(self) -> None:
        """The server is going away: every run it started stops, and its browser closes."""
        running = [live for live in self.live.values() if live.task is not None and not live.task.done()]
        for live in running:
            live.run.control.stop(HOST_GONE)
        # Shielded: a server being torn down still waits for its runs to close their browsers.
        with anyio.CancelScope(shield=True), anyio.move_on_after(30):
            for live in running:
                assert live.task is not None
                await asyncio.wait({live.task})

"""The runs an MCP server started: each a stored session wired like `goalbot run`'s (its events go
to the store, `goalbot attach` reaches it), driven as a task on the server's own event loop, in a
browser of its own. What a host may not say is decided here, by the server's rules: a run started
over MCP asks the person for its plan and its risky actions unless the server was started
otherwise, and no argument a model fills in can change that."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, SecretStr

from goalbot.agents.options import RunOptions
from goalbot.agents.outcome import SessionResult, Status
from goalbot.agents.secrets import REFERENCE
from goalbot.cli.mcp_server.models import Problem, RunState, RunStatus, Waiting
from goalbot.cli.options import run_options
from goalbot.cli.request import RunRequest
from goalbot.cli.settings import Settings
from goalbot.cli.recipe_commands import recorded_at
from goalbot.cli.run_commands import keep_recipe
from goalbot.cli.wiring import Wiring, WiringError, check_endpoint, wire_run
from goalbot.events import Event, EventType
from goalbot.llm.extraction import SchemaError, checked
from goalbot.operators.browser.launch import BrowserOptions
from goalbot.payloads import ApprovalData, ExtractedData, GoalStatusData, PlanData, QuestionData, StepData
from goalbot.recipes.runner import Rerun
from goalbot.recipes.variables import fill
from goalbot.text.eventfmt import printable, summary
from storage import queries, recipes
from storage.db import StoreError, opened

KEPT_LINES = 8  # event lines get_run returns: enough to see where a run is, never a whole log
# "password: hunter2", "token=abc…", "pw hunter2": a secret written into a goal would reach the
# model, the store and every log; the server refuses it and says how to pass one.
SECRET_IN_CLEAR = re.compile(r"\b(pass(word|wd|code)?|pw|pin|token|api[ _-]?key|secret)\b\s*(is\s+|[:=]\s*)\S+",
                             re.IGNORECASE)


class ProblemError(ToolError):
    """An anticipated failure: the host's model reads `{"code", "message", "hint"}`, never a traceback."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(json.dumps(problem.model_dump(), ensure_ascii=False))
        self.problem = problem


class HostRules(BaseModel):
    """The server's own configuration: what a host's model can never switch on."""

    approve_plans: bool = Field(False, description="--approve-plans: plans run without asking the person.")
    allow_risky: bool = Field(False, description="--allow-risky: risky actions GO without asking.")
    headless: bool = True
    cdp_url: str | None = Field(None, description="--cdp-url: every run's browser context comes from that Chromium.")
    secrets: dict[str, SecretStr] = Field(default_factory=dict, description="--secret: what `<secret:NAME>` types.")


@dataclass
class Live:
    """One run of this server, followed as its events come."""

    wiring: Wiring
    goal: str
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
    def status(self) -> RunStatus:
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

    def _request(self) -> RunRequest:
        browser = BrowserOptions(headless=self.rules.headless, browser_path=self.settings.browser_path,
                                 cdp_url=self.rules.cdp_url)
        return RunRequest(auto_approve=self.rules.approve_plans, browser=browser, secrets=dict(self.rules.secrets))

    async def start_goal(self, goal: str, url: str | None, output_schema: dict[str, Any] | None) -> Live:
        if not goal.strip():
            raise ProblemError(Problem(code="bad_input", message="the goal is empty",
                                       hint="say what to reach, e.g. 'turn on dark mode in the settings'"))
        if SECRET_IN_CLEAR.search(REFERENCE.sub("", goal)):
            raise ProblemError(Problem(
                code="secret_in_goal", message="the goal holds what looks like a secret written in the clear",
                hint="start the server with --secret NAME=VALUE and write <secret:NAME> in the goal"))
        options = run_options(self.settings, goal, url)
        if output_schema is not None:
            try:
                options.output_schema = checked(output_schema, "output_schema")
            except SchemaError as exc:
                raise ProblemError(Problem(code="bad_input", message=str(exc),
                                           hint="give a JSON Schema object (draft 2020-12)")) from exc
        options.allow_risky = self.rules.allow_risky
        problem = await anyio.to_thread.run_sync(check_endpoint, self.settings)
        if problem is not None:
            raise ProblemError(Problem(code="unreachable", message=problem,
                                       hint="start the server with a working --base-url and --model"))
        return self._start(goal, options, None)

    async def start_rerun(self, name: str, values: dict[str, str]) -> Live:
        try:
            with opened(self.db_path) as db:
                recipe = recipes.load(db, name)
                healed = recipes.heals_of(db, recipe) if recipe else {}
                # Its secrets go only where this store saw it recorded, as for `goalbot rerun`:
                # an imported recipe's own start address is not trusted with them.
                secrets_at = recorded_at(db, recipe) if recipe else None
        except (StoreError, recipes.UnreadableRecipe) as exc:
            raise ProblemError(Problem(code="internal", message=str(exc))) from exc
        if recipe is None:
            raise ProblemError(Problem(code="not_found", message=f"no recipe {name}", hint="list_recipes names them"))
        unfilled = [n for n in recipe.variables if n not in values]
        if unfilled:
            raise ProblemError(Problem(code="bad_input", message=f"recipe {name} needs vars: {', '.join(unfilled)}",
                                       hint="pass vars as {\"NAME\": \"value\"}"))
        missing = [n for n in recipe.secrets if n not in self.rules.secrets]
        if missing:
            raise ProblemError(Problem(code="bad_input", message=f"recipe {name} types secrets: {', '.join(missing)}",
                                       hint="start the server with --secret NAME=VALUE for each"))
        rerun = Rerun(recipe=recipe, values=values, healed=healed, secrets_at=secrets_at)
        recipe.start_url = fill(recipe.start_url, values)
        options = run_options(self.settings, fill(recipe.goal, values), recipe.start_url)
        options.allow_risky = self.rules.allow_risky
        return self._start(options.goal, options, rerun)

    def _start(self, goal: str, options: RunOptions, rerun: Rerun | None) -> Live:
        options = options.model_copy(update={"pictures": "paced"})
        try:
            wiring = wire_run(self._request(), self.settings, self.db_path, options, True, rerun=rerun,
                              probe_model=False)
        except WiringError as exc:
            raise ProblemError(Problem(code="bad_input", message=str(exc))) from exc
        live = Live(wiring=wiring, goal=goal)
        wiring.bus.subscribe(live.seen)
        self.live[wiring.session_id] = live
        live.task = asyncio.create_task(self._drive(live))
        return live

    async def _drive(self, live: Live) -> SessionResult:
        try:
            live.result = await live.wiring.session.run()
        finally:
            live.wiring.close(self.db_path)
            if live.result is not None:  # a rerun's heals or patch are kept, as `goalbot rerun` keeps them
                keep_recipe(self.db_path, live.wiring, live.result.status)
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

    def state(self, run_id: str) -> RunState:
        live = self.live.get(run_id)
        if live is not None:
            result = live.result
            return RunState(run_id=run_id, goal=live.goal, status=live.status, step=live.step,
                            progress_percent=live.percent, last_events=list(live.lines),
                            waiting=waiting_of(live.waiting) if live.waiting else None,
                            result=live.answer, reason=result.reason if result else "",
                            model_calls=live.calls, screenshot_uri=f"goalbot://runs/{run_id}/screenshot")
        try:
            with opened(self.db_path) as db:
                row = queries.session_row(db, run_id)
                events = queries.session_events(db, run_id)[-KEPT_LINES:] if row else []
        except StoreError as exc:
            raise ProblemError(Problem(code="internal", message=str(exc))) from exc
        if row is None:
            raise ProblemError(Problem(code="not_found", message=f"no run {run_id}", hint="list_runs names them"))
        status = row.status if row.status in ("ok", "failed", "cancelled", "interrupted") else "running"
        return RunState(run_id=run_id, goal=row.goal, status=status,  # type: ignore[arg-type]
                        last_events=[printable(f"{e.type.value}: {summary(e)}")[:300] for e in events],
                        result=row.answer, reason=row.finish_reason or "",
                        screenshot_uri=f"goalbot://runs/{run_id}/screenshot")

    def cancel(self, run_id: str) -> RunState:
        live = self.live.get(run_id)
        if live is None:
            self.state(run_id)  # not_found, or a run of another process
            raise ProblemError(Problem(code="not_running", message=f"run {run_id} is not running in this server",
                                       hint="a run of another process stops from its dashboard or goalbot attach"))
        live.wiring.control.stop()
        return self.state(run_id)

    async def close(self) -> None:
        """The server is going away: every run it started stops, and its browser closes."""
        running = [live for live in self.live.values() if live.task is not None and not live.task.done()]
        for live in running:
            live.wiring.control.stop()
        for live in running:
            assert live.task is not None
            with anyio.move_on_after(30):
                await asyncio.shield(live.task)

"""goalbot as a Python library: the service's face for a program, beside the command line, the
dashboard and MCP. A run started here passes the same checks, gates and guards as at every other
door (it starts through `goalbot.service.runs`), is stored the same way, and can be replayed,
reported, attached to and rerun like any other.

    from goalbot.api import Goalbot

    bot = Goalbot(base_url="http://127.0.0.1:8000/v1", model="my-model", db="runs.db")
    outcome = bot.run_sync("turn on dark mode", url="https://example.com/settings",
                           answer=lambda asked: asked.kind == "plan")
    print(outcome.status, outcome.session)

Approvals, risky actions (GO) and questions reach the `answer` callback the caller gives, sync or
async; a run without one is unattended: its plans are approved as under `--yes`, every GO is
NOT GO and every question goes unanswered."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, SecretStr

from goalbot.agents.control import SessionControl
from goalbot.agents.options import RunOptions
from goalbot.agents.progress import ResumePoint
from goalbot.events import Event, EventType
from goalbot.llm.extraction import SchemaError, checked
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.options import BrowserOptions
from goalbot.payloads import ApprovalData, ExtractedData, PlanData, QuestionData
from goalbot.recipes.rerun import Rerun
from goalbot.service.refusal import Refusal
from goalbot.service.request import RunRequest
from goalbot.service.results import Choices, RunResult
from goalbot.service.resuming import give_back, prepare_resume
from goalbot.service.reruns import prepare_rerun
from goalbot.service.runs import Audience, Door, StartedRun
from goalbot.service.settings import Settings, load_settings
from goalbot.service.starting import goal_start
from storage import queries
from storage.db import default_path, opened
from storage.rows import SessionRow

__all__ = ["Asked", "Goalbot", "GoalbotRefused", "Looked", "RunHandle", "RunResult", "SessionRow"]

T = TypeVar("T")
Answer = Callable[["Asked"], "bool | str | None | Awaitable[bool | str | None]"]
EventHandler = Callable[[Event], None]


class GoalbotRefused(Exception):
    """The run could not start (a bad address, a secret in the goal, a dead endpoint …); nothing
    was started for it. `code` is the refusal's code, as MCP and `--json` give it."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.line())
        self.code, self.message, self.hint = refusal.code, refusal.message, refusal.hint


class Asked(BaseModel):
    """What a run asks the person. Answer a plan or a GO with True (approve, GO) or False; a
    question with the text of the answer (None declines)."""

    kind: Literal["plan", "go", "question"]
    what: str = Field(description="The plan's steps, the risky action, or the question, in words.")
    steps: list[str] = Field(default_factory=list, description="A plan's steps.")
    where: str = Field("", description="The page a GO is for.")
    risky: bool = False


class Looked(BaseModel):
    """A page as the navigator reads it (`goalbot observe`)."""

    url: str
    title: str
    observation: str = Field(description="The text the model is sent: elements with their numbers, roles, names.")
    elements: list[dict[str, Any]]


class RunHandle:
    """A run under way: its events as they come, and its result once it ends."""

    def __init__(self, started: StartedRun, answer: Answer | None, on_event: EventHandler | None) -> None:
        self._started, self._answer, self._on_event = started, answer, on_event
        self._events: asyncio.Queue[Event | None] = asyncio.Queue()
        self._extracted: list[ExtractedData] = []
        self._choices = Choices()
        self._asking: set[asyncio.Task[None]] = set()
        started.bus.subscribe(self._heard)
        self._task = asyncio.create_task(self._drive())

    @property
    def session(self) -> str:
        return self._started.session_id

    def stop(self) -> None:
        """Stops the run before its next action, as Ctrl-C does."""
        self._started.control.stop()

    async def events(self) -> AsyncIterator[Event]:
        """Every event of the run from its start, until it ends."""
        while (event := await self._events.get()) is not None:
            yield event

    async def result(self) -> RunResult:
        ended = await self._task
        return RunResult.of(self.session, ended, self._extracted[-1] if self._extracted else None,
                            self._choices.made)

    async def _drive(self) -> Any:
        try:
            return await self._started.drive()
        finally:
            self._events.put_nowait(None)

    def _heard(self, event: Event) -> None:
        self._events.put_nowait(event)
        self._choices.hear(event)
        if event.type is EventType.EXTRACTED:
            self._extracted.append(event.data_of(ExtractedData))
        if self._on_event is not None:
            self._on_event(event)
        asked = _asked(event)
        if asked is not None and self._answer is not None:
            task = asyncio.get_running_loop().create_task(self._reply(asked))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)

    async def _reply(self, asked: Asked) -> None:
        control, answer = self._started.control, self._answer
        assert answer is not None
        try:
            said = answer(asked)
            if inspect.isawaitable(said):
                said = await said
        except Exception as exc:  # the caller's callback failed: the safe answer, said as such
            said = None
            reason = f"the answer callback failed: {type(exc).__name__}"
        else:
            reason = ""
        _send(control, asked, said, reason)


def _asked(event: Event) -> Asked | None:
    match event.type, event.payload:
        case EventType.PLAN_PROPOSED, PlanData() as plan if plan.asks_approval:
            return Asked(kind="plan", what=" · ".join(plan.steps), steps=plan.steps)
        case EventType.APPROVAL_REQUEST, ApprovalData() as request:
            return Asked(kind="go", what=request.what, where=request.where or "", risky=request.risky)
        case EventType.ASK_USER, QuestionData() as question:
            return Asked(kind="question", what=question.question)
    return None


def _send(control: SessionControl, asked: Asked, said: bool | str | None, why_not: str) -> None:
    by = "the Python API's answer callback"
    if asked.kind == "plan":
        control.approve(by=by) if said is True else control.reject(why_not, by=by)
    elif asked.kind == "go":
        # Only a literal True is a GO: "yes", 1 or a truthy object is not.
        control.grant(by=by) if said is True else control.deny(by=by)
    elif isinstance(said, str) and said:
        control.answer(said, by=by)
    else:
        control.decline(by=by)


class Goalbot:
    """goalbot for a program. The settings are read as the command line reads them (the config
    file, then GOALBOT_* in the environment); the arguments given here win."""

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 db: str | Path | None = None, headless: bool = True, browser_path: str | None = None,
                 allow_domains: list[str] | None = None, config: str | Path | None = None,
                 **settings: Any) -> None:
        given = {"base_url": base_url, "model": model, "api_key": api_key, "browser_path": browser_path,
                 "allow_domain": allow_domains, **settings}
        self.settings: Settings = load_settings({k: v for k, v in given.items() if v is not None},
                                                Path(config) if config else None)
        self.db_path = Path(db) if db is not None else self.settings.db or default_path()
        self.headless = headless

    # -- runs -------------------------------------------------------------------------------------

    async def start(self, goal: str, url: str | None = None, *, answer: Answer | None = None,
                    on_event: EventHandler | None = None, secrets: dict[str, str] | None = None,
                    variables: dict[str, str] | None = None, output_schema: dict[str, Any] | None = None,
                    save_recipe: str | None = None, use_recipes: bool = True) -> RunHandle:
        """A goal's run, started: a stored recipe the goal surely names reruns with no model
        (`use_recipes=False` plans it anew). `GoalbotRefused` when it cannot start."""
        request = self._request(answer, secrets, variables, save_recipe)
        start = await asyncio.to_thread(_or_refused, lambda: goal_start(
            self.db_path, self.settings, goal, url, dict(variables or {}), set(request.secrets),
            use_recipes=use_recipes and not (save_recipe or output_schema), person_chooses=answer is not None))
        options = start.options
        if start.rerun is None:
            options.variables = dict(variables or {})
        if output_schema is not None:
            try:
                options.output_schema = checked(output_schema, "output_schema")
            except SchemaError as exc:
                raise GoalbotRefused(Refusal("bad_input", str(exc), "give a JSON Schema object")) from exc
        return await self._started(request, options, answer, on_event, rerun=start.rerun)

    async def run(self, goal: str, url: str | None = None, **how: Any) -> RunResult:
        """A goal run to its end (the arguments are `start`'s)."""
        return await (await self.start(goal, url, **how)).result()

    async def rerun(self, recipe: str, *, variables: dict[str, str] | None = None,
                    secrets: dict[str, str] | None = None, url: str | None = None, version: int | None = None,
                    answer: Answer | None = None, on_event: EventHandler | None = None) -> RunResult:
        """A stored recipe rerun with no model, with `variables` for its {{variables}}."""
        request = self._request(answer, secrets, variables, None)
        prepared = await asyncio.to_thread(_or_refused, lambda: prepare_rerun(
            self.db_path, self.settings, recipe, dict(variables or {}), set(request.secrets), version, url))
        handle = await self._started(request, prepared.options, answer, on_event, rerun=prepared.rerun())
        return await handle.result()

    async def resume(self, session: str, *, answer: Answer | None = None, on_event: EventHandler | None = None,
                     secrets: dict[str, str] | None = None, allow_risky: bool = False) -> RunResult:
        """A session that was cut off, continued in the same session from its last finished step."""
        prepared = await asyncio.to_thread(_or_refused, lambda: prepare_resume(
            self.db_path, self.settings, session, allow_risky))
        request = self._request(answer, secrets, None, None)
        request.auto_approve = request.auto_approve or prepared.auto_approve  # a run begun under --yes stays so
        try:
            handle = await self._started(request, prepared.options, answer, on_event, point=prepared.point,
                                         settings=prepared.settings)
        except GoalbotRefused:
            give_back(self.db_path, session)
            raise
        return await handle.result()

    async def extract(self, url: str, schema: dict[str, Any], instruction: str = "read the data the schema asks for",
                      *, answer: Answer | None = None, secrets: dict[str, str] | None = None,
                      save_recipe: str | None = None) -> RunResult:
        """The data on `url` that fits `schema`, read as `--output-schema` reads it (`result`)."""
        return await self.run(instruction, url, output_schema=schema, answer=answer, secrets=secrets,
                              save_recipe=save_recipe, use_recipes=False)

    async def observe(self, url: str, budget: int | None = None) -> Looked:
        """`url` as the navigator reads it, opened by the same rules as a run's."""
        from goalbot.service.looking import page_to_look_at

        browser = BrowserOptions(headless=self.headless, browser_path=self.settings.browser_path)
        try:
            async with page_to_look_at(url, browser, self.settings.allow_domain, self.settings.allow_scheme,
                                       *([budget] if budget else [])) as operator:
                seen = await operator.observe(screenshot=False)
        except Refusal as refusal:
            raise GoalbotRefused(refusal) from refusal
        except OperatorError as exc:
            raise GoalbotRefused(Refusal("unreachable", str(exc))) from exc
        return Looked(url=seen.url, title=seen.title, observation=seen.render(),
                      elements=[e.model_dump(exclude_none=True, exclude={"kind"}) for e in seen.elements.values()])

    # -- the store --------------------------------------------------------------------------------

    def sessions(self, limit: int = 50, status: str | None = None) -> list[SessionRow]:
        """The stored sessions, newest first."""
        if not self.db_path.exists():
            return []
        with opened(self.db_path, create=False) as db:
            return queries.list_sessions(db, limit, status)

    def events_of(self, session: str) -> list[Event]:
        """A stored session's events, in order: what `goalbot replay` shows."""
        with opened(self.db_path, create=False) as db:
            return queries.session_events(db, session)

    def report(self, session: str) -> str:
        """A stored session's report in Markdown (`goalbot report`); "" when it has none yet."""
        from goalbot.service.reports import store_report

        with opened(self.db_path, create=False) as db:
            row = queries.session_row(db, session)
        if row is None:
            raise GoalbotRefused(Refusal("not_found", f"no session {session} in {self.db_path}"))
        return (row.report if not row.running else None) or store_report(self.db_path, row.id) or ""

    # -- sync wrappers, for a script with no event loop of its own ----------------------------------

    def run_sync(self, goal: str, url: str | None = None, **how: Any) -> RunResult:
        return asyncio.run(self.run(goal, url, **how))

    def rerun_sync(self, recipe: str, **how: Any) -> RunResult:
        return asyncio.run(self.rerun(recipe, **how))

    def resume_sync(self, session: str, **how: Any) -> RunResult:
        return asyncio.run(self.resume(session, **how))

    def extract_sync(self, url: str, schema: dict[str, Any], *args: Any, **how: Any) -> RunResult:
        return asyncio.run(self.extract(url, schema, *args, **how))

    def observe_sync(self, url: str, budget: int | None = None) -> Looked:
        return asyncio.run(self.observe(url, budget))

    # -- inside -----------------------------------------------------------------------------------

    def _request(self, answer: Answer | None, secrets: dict[str, str] | None, variables: dict[str, str] | None,
                 save_recipe: str | None) -> RunRequest:
        # With nobody to answer, plans are approved as under --yes: the guards and every GO still hold.
        return RunRequest(auto_approve=answer is None, no_tui=True,
                          browser=BrowserOptions(headless=self.headless, browser_path=self.settings.browser_path),
                          secrets={name: SecretStr(value) for name, value in (secrets or {}).items()},
                          variables=dict(variables or {}), save_recipe=save_recipe)

    async def _started(self, request: RunRequest, options: RunOptions, answer: Answer | None,
                       on_event: EventHandler | None, rerun: Rerun | None = None, point: ResumePoint | None = None,
                       settings: Settings | None = None) -> RunHandle:
        door = Door(settings or self.settings, self.db_path, Audience.CALLER if answer else Audience.NOBODY)
        started = await asyncio.to_thread(_or_refused, lambda: door.start(request, options, rerun, point))
        return RunHandle(started, answer, on_event)


def _or_refused(make: Callable[[], T]) -> T:
    try:
        return make()
    except Refusal as refusal:
        raise GoalbotRefused(refusal) from refusal

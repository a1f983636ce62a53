"""The MCP server: goalbot's tools as a host's model reads them. Long runs go both ways — an id at
once, to poll with `get_run`; or `wait`, with a progress notification for each step started, done
or failed, each re-plan and each question — and a GO / NOT GO or a plan goes to the person through
the host (MCP elicitation) when it can, bound to the one question the server asked."""

from __future__ import annotations

import inspect
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Literal

import anyio
from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.shared.exceptions import NoBackChannelError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, Field

from goalbot.events import Event, EventType
from goalbot.mcp.access import Keyring, client_of_request
from goalbot.mcp.models import Observed, Problem, RecipeLine, RecipeList, Report, RunList, RunStarted, RunView
from goalbot.mcp.runs import HOST_GONE, HostRules, Live, ProblemError, RunBook, digest_of, not_found, waiting_of
from goalbot.operators.base import OperatorError
from goalbot.operators.browser.options import BrowserOptions
from goalbot.payloads import PlanData
from goalbot.service.looking import page_to_look_at
from goalbot.service.refusal import Refusal
from goalbot.service.reports import store_report
from goalbot.service.settings import Settings
from goalbot.text.eventfmt import printable, summary
from storage import queries, recipes
from storage.db import StoreError, opened

MAX_ANSWER = 20_000  # characters of a report or a page in one answer: the rest stays in the store
PROGRESS_EVENTS = {EventType.PLAN_PROPOSED, EventType.STEP_START, EventType.STEP_OK, EventType.STEP_FAIL,
                   EventType.APPROVAL_REQUEST, EventType.ASK_USER, EventType.EXTRACTED, EventType.CHOSEN}
INSTRUCTIONS = """goalbot reaches goals in a real web browser: it plans, asks its person to approve
the plan and every risky action (buying, sending, deleting), carries the steps out and checks them.
Start with run_goal (or rerun_recipe for a recorded flow: no model, no cost), then get_run until it
ends, or pass wait=true to follow it with progress. A run waiting for its person says so in
get_run; the person answers in your host's prompt, or with `goalbot attach RUN_ID`."""


class GoDecision(BaseModel):
    decision: Literal["GO", "NOT GO"] = Field(description="GO lets exactly the action described happen.")


class PlanDecision(BaseModel):
    approve: bool = Field(description="Approve the plan as shown.")
    feedback: str = Field("", description="When not approved: what the planner should do differently.")


def build_server(settings: Settings, db_path: Path, rules: HostRules,
                 keyring: Keyring | None = None) -> MCPServer[RunBook]:
    """The server; `keyring` over HTTP, where each client is the one its token names."""
    book = RunBook(settings, db_path, rules)

    def client(ctx: Context) -> str:
        return client_of_request(ctx.headers, keyring)

    @asynccontextmanager
    async def lifespan(_: MCPServer[RunBook]) -> AsyncIterator[RunBook]:
        try:
            yield book
        finally:
            await book.close()  # never orphaned browsers: what this server started ends with it

    # WARNING: the SDK's INFO lines (every model request) would bury what a person needs on stderr.
    server: MCPServer[RunBook] = MCPServer("goalbot", instructions=INSTRUCTIONS, lifespan=lifespan,
                                           log_level="WARNING")

    def tool(function: Callable[..., Any]) -> Callable[..., Any]:
        """A tool whose description is its docstring as a host's model should read it: without the
        indentation the source gives it."""
        return server.tool(description=inspect.cleandoc(function.__doc__ or ""))(function)

    @tool
    async def run_goal(goal: str, ctx: Context, url: str | None = None, output_schema: dict[str, Any] | None = None,
                       wait: bool = False) -> RunStarted | InputRequiredResult:
        """Reach a goal in a real browser: goalbot plans it, the person approves, it acts and checks.

        goal: what to reach, in words ("turn on dark mode in the settings").
        url: the page to start on.
        output_schema: a JSON Schema; the run's answer is then data read off the page that fits it.
        wait: follow the run with progress notifications and return when it ends; else return
        its run_id at once, to poll with get_run.
        """
        asker = client(ctx)
        live, answered = _resumed(book, ctx, asker) or (await book.start_goal(goal, url, output_schema, asker), "")
        if not wait:
            return RunStarted(run_id=live.run.session_id, status=live.status)
        return await _settled(book, live, ctx, answered)

    @tool
    async def rerun_recipe(name: str, ctx: Context, vars: dict[str, str] | None = None,
                           wait: bool = False) -> RunStarted | InputRequiredResult:
        """Rerun a recorded recipe with no model: the same flow on today's page, with today's values.

        name: the recipe's name (list_recipes). vars: the values of its variables, {"NAME": "value"}.
        wait: as for run_goal.
        """
        asker = client(ctx)
        live, answered = _resumed(book, ctx, asker) or (await book.start_rerun(name, vars or {}, asker), "")
        if not wait:
            return RunStarted(run_id=live.run.session_id, status=live.status)
        return await _settled(book, live, ctx, answered)

    # Async on purpose: the SDK runs plain functions on worker threads, and a live run's state
    # belongs to the event loop it runs on.
    @tool
    async def get_run(run_id: str, ctx: Context) -> RunView:
        """Where a run is: its status, the step in progress, what it waits for, its newest events, its result."""
        return book.state(run_id, client(ctx))

    @tool
    async def cancel_run(run_id: str, ctx: Context) -> RunView:
        """Stop a run you started on this server before its next action; what it did so far stays stored."""
        return book.cancel(run_id, client(ctx))

    @tool
    async def list_runs(ctx: Context, limit: int = 10) -> RunList:
        """The newest runs you started, newest first."""
        return RunList(runs=book.listed(client(ctx), max(1, min(limit, 100))))

    @tool
    def list_recipes() -> RecipeList:
        """The recorded recipes rerun_recipe can run, with the vars each needs."""
        try:
            with opened(db_path) as db:
                found = [recipes.load(db, row["name"]) for row in recipes.listed(db)]
        except (StoreError, recipes.UnreadableRecipe) as exc:
            raise ProblemError(Problem(code="internal", message=str(exc))) from exc
        return RecipeList(recipes=[RecipeLine(name=r.name, version=r.version, steps=len(r.steps),
                                              goal=printable(r.goal)[:200], needs_vars=r.variables,
                                              needs_secrets=r.secrets) for r in found if r is not None])

    @tool
    async def get_report(run_id: str, ctx: Context) -> Report:
        """A run's report in Markdown: what was planned and done, what it cost, what it found."""
        if not book.readable(run_id, client(ctx)):
            raise not_found(run_id)
        try:
            markdown = await anyio.to_thread.run_sync(store_report, db_path, run_id)
        except StoreError as exc:
            raise ProblemError(Problem(code="internal", message=str(exc))) from exc
        if markdown is None:
            raise not_found(run_id)
        return Report(run_id=run_id, markdown=markdown[:MAX_ANSWER], cut=len(markdown) > MAX_ANSWER,
                      uri=f"goalbot://runs/{run_id}/report")

    # Bulky things are resources a host reads when it wants them, never part of every answer.
    @server.resource("goalbot://runs/{run_id}/report", mime_type="text/markdown",
                     description="A run's whole Markdown report.")
    async def report_resource(run_id: str, ctx: Context) -> str:
        if not book.readable(run_id, client(ctx)):
            raise ResourceNotFoundError(f"no run {run_id}")
        markdown = await anyio.to_thread.run_sync(store_report, db_path, run_id)
        if markdown is None:
            raise ResourceNotFoundError(f"no run {run_id}")
        return markdown

    @server.resource("goalbot://runs/{run_id}/screenshot", mime_type="image/jpeg",
                     description="What a run's browser showed last (JPEG).")
    async def screenshot_resource(run_id: str, ctx: Context) -> bytes:
        if not book.readable(run_id, client(ctx)):
            raise ResourceNotFoundError(f"no run {run_id}")
        try:
            shot = await anyio.to_thread.run_sync(_latest_screenshot, db_path, run_id)
        except StoreError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        if shot is None:
            raise ResourceNotFoundError(f"run {run_id} has no screenshot yet")
        return shot[1]

    @tool
    async def observe(url: str) -> Observed:
        """What goalbot's navigator sees on a web page (http or https): its numbered elements and text,
        within a budget."""
        browser = BrowserOptions(headless=True, browser_path=settings.browser_path, cdp_url=rules.cdp_url)
        try:
            async with page_to_look_at(url, browser, settings.allow_domain, settings.allow_scheme) as operator:
                seen = await operator.observe(screenshot=False)
        except Refusal as refusal:
            raise ProblemError.of(refusal) from refusal
        except OperatorError as exc:
            raise ProblemError(Problem(code="unreachable", message=str(exc), hint="check the address")) from exc
        page = seen.render()
        return Observed(url=seen.url, title=seen.title, page=page[:MAX_ANSWER], cut=len(page) > MAX_ANSWER)

    return server


def _latest_screenshot(db_path: Path, run_id: str) -> tuple[str, bytes] | None:
    with opened(db_path) as db:
        return queries.latest_screenshot(db, run_id)


async def _settled(book: RunBook, live: Live, ctx: Context, answered: str = "") -> RunStarted | InputRequiredResult:
    """Follows the run to its end: progress for each step and question; the person's answers
    through the host when it can ask them, else the question returned at once (the person answers
    with `goalbot attach`). A host that cancels the call or goes away stops the run. On a host
    of the 2026-07-28 protocol a question ends this round with the question itself, and the
    host's retry of the same call carries the answer back (`_resumed`)."""
    run_id, reported = live.run.session_id, 0
    try:
        async for event in book.follow(live):
            if event.type in PROGRESS_EVENTS:
                reported += 1
                await ctx.report_progress(reported, None, printable(f"{event.type.value}: {summary(event)}")[:300])
            if event is not live.waiting or digest_of(run_id, event) == answered:
                continue  # not a question, or the one this round's retry just answered
            asked = await _ask_host(live, event, ctx)
            if isinstance(asked, InputRequiredResult):
                return asked
            if not asked:  # the host cannot put it to its person: what waits is said now, as get_run says it
                return RunStarted(run_id=run_id, status="waiting_for_person", waiting=waiting_of(event),
                                  reason=f"waiting for the person: goalbot attach {run_id}")
    except BaseException:
        if live.result is None:
            live.run.control.stop(HOST_GONE)  # the host gave up on the call: the run stops before its next action
        raise
    assert live.task is not None
    result = await live.task
    if result.could_not_start:
        raise ProblemError(Problem(code="unreachable", message=result.reason, hint="check the url, and that a browser "
                              "can start on the server's machine"))
    return RunStarted(run_id=run_id, status=live.status, result=live.answer, reason=result.reason)


class Asked(BaseModel):
    """What a round of the multi-round-trip protocol carries to the next: the run and the one
    question its answer binds to. The SDK seals it; a host only echoes it back."""

    run_id: str
    digest: str


async def _ask_host(live: Live, event: Event, ctx: Context) -> bool | InputRequiredResult:
    """Puts the question the run waits on to the person through the host. True: asked and
    answered; False: the host cannot ask (the run waits for `goalbot attach`); or the question to
    return, for a host that answers by retrying the call."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.elicitation is None or event.type is EventType.ASK_USER:
        return False  # a question's answer may be a secret: it never passes through a host's model
    run_id, digest, asked = live.run.session_id, digest_of(live.run.session_id, event), waiting_of(event)
    schema = PlanDecision if isinstance(event.payload, PlanData) else GoDecision
    where = f" on {asked.where}" if asked.where else ""
    message = printable(f"goalbot run {run_id} [{digest}]: {asked.what}{where}")
    try:
        answer = await ctx.elicit(message, schema)
    except NoBackChannelError:
        request = ElicitRequest(params=ElicitRequestFormParams(message=message,
                                                               requested_schema=render_elicitation_schema(schema)))
        return InputRequiredResult(input_requests={digest: request},
                                   request_state=Asked(run_id=run_id, digest=digest).model_dump_json())
    except Exception:  # noqa: BLE001 - a host that fails to ask leaves the question to attach
        return False
    data = answer.data if isinstance(answer, AcceptedElicitation) else None
    _apply(live, digest, answer.action, data)
    return True


def _apply(live: Live, digest: str, action: str, data: BaseModel | None) -> None:
    """The person's answer, applied only while the run still waits on the very question asked:
    its digest was minted here from that question, never taken from a tool's arguments."""
    still = live.waiting
    if still is None or digest_of(live.run.session_id, still) != digest:
        return  # answered elsewhere meanwhile (attach, a timeout): this answer binds to nothing now
    control, by = live.run.control, "the MCP host's person"
    is_plan = isinstance(still.payload, PlanData)
    if action != "accept" or data is None:
        control.reject("declined in the host", by=by) if is_plan else control.deny(by=by)
    elif isinstance(data, PlanDecision):
        control.approve(by=by) if data.approve else control.reject(data.feedback, by=by)
    elif isinstance(data, GoDecision):
        control.grant(by=by) if data.decision == "GO" else control.deny(by=by)


def _resumed(book: RunBook, ctx: Context, owner: str) -> tuple[Live, str] | None:
    """The run a retried call follows and the question its host answered, with the answer
    applied; None for a new call."""
    if ctx.request_state is None:
        return None
    try:
        asked = Asked.model_validate_json(ctx.request_state)
    except ValueError:
        return None
    live = book.owned(asked.run_id, owner)
    if live is None:
        return None
    response = (ctx.input_responses or {}).get(asked.digest)
    if isinstance(response, ElicitResult):
        still = live.waiting
        schema = PlanDecision if still is not None and isinstance(still.payload, PlanData) else GoDecision
        try:
            data = schema.model_validate(response.content) if response.content is not None else None
        except ValueError:
            data = None
        _apply(live, asked.digest, response.action, data)
    return live, asked.digest

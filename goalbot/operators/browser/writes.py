"""The page's writes, held back while an action is judged by what it does.

A control whose words say it sends ("Reply", "Send", "Share") may only open a form, or it may
post. Rather than ask the person before every such press, goalbot presses it with the page's
writes held: every request that is not a read (HTTP's safe methods GET, HEAD and OPTIONS are
reads), every message the page sends over a WebSocket, and every message it hands to a worker
(hold.js) waits until the person says GO. A press that only opens a form sends nothing and needs
no GO; what is never let through is never sent.

The hold belongs to the document that was pressed, not to the moment: a write that page puts off
(a timer, a beacon as it is left) is held whatever action is running when it is made. It is
lifted only when that tab shows another document, or is closed, and nothing is held.

A press whose write is held may never end on its own (a form submitted into a held navigation,
a synchronous XMLHttpRequest that freezes the page): the action is left waiting, the GO is asked
at once, and the action ends when the write is let through or dropped.

A GO lets through what was held, and the document a form the gate held submits once released (the
editor's "Publish" posting back to its own address), which posts while the hold is on: `passing`
lets that navigation through, and nothing else. Held, that post was never sent, and the page,
stuck between documents, answered nothing again.

What a GO let through may never be answered (a server that keeps the post waiting): Chromium then
answers no call to that tab at all, not even one to look at it, until the navigation ends. So a GO
is carried out, as every action is, within ANSWER_WITHIN_S (`answered_within`); a tab still not
answering then has its loading stopped, as a person would press Stop, and the action ends failed,
saying what was sent.

A request reaches the route a moment after the page makes it. A hold lifted in that moment would
let through a write the page made while it was on; so a hold is lifted only once every request the
page has in flight (fetch and XMLHttpRequest, counted by watch.js) is one of those held.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from importlib.resources import files
from typing import AsyncIterator, Awaitable, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Frame, Page, Request, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from goalbot.actions import ActionResult, Outcome
from goalbot.operators.base import ActionFailed, OperatorError

T = TypeVar("T")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SHOWN_BODY = 120
LIFT_WAIT_S = 1.0  # how long a lifting hold waits for writes in flight to reach it
HELD_GRACE_S = 0.5  # an action whose write is held and which has not ended by then waits for the GO
SETTLE_AFTER_S = 10.0  # how long a waiting action may take to end once its write is let through
IN_FLIGHT_JS = "() => window.__goalbotWatch ? window.__goalbotWatch.writes : 0"  # reads (a long poll) never wait
HOLD_JS = files("goalbot.operators.browser").joinpath("hold.js").read_text(encoding="utf-8")
PAGE_HELD_JS = "() => window.__goalbotHold ? window.__goalbotHold.held() : []"
PAGE_ARM_JS = "([token, on]) => window.__goalbotHold ? window.__goalbotHold.arm(token, on) : false"
PAGE_RELEASE_JS = "(token) => window.__goalbotHold ? window.__goalbotHold.release(token) : []"
PAGE_DROP_JS = "(token) => window.__goalbotHold ? window.__goalbotHold.drop(token) : []"
DOCUMENT_JS = "() => performance.timeOrigin"
EVALUATE_WAIT_S = 2.0  # a frame that has not answered by then is frozen or going away
ANSWER_WITHIN_S = 30.0  # how long a site may keep a tab waiting (a navigation's own bound): then it is stopped
UNFROZEN_WITHIN_S = 10.0  # how long work on a tab whose loading was stopped may take to end then
ANSWERS_JS = "() => true"
# How long ago (ms) the page started leaving for a document that has not come; 0 when it is not leaving.
LEAVING_FOR_JS = "() => { const w = window.__goalbotWatch; return w && w.leaving ? performance.now() - w.leaving : 0; }"


@dataclass
class _HeldWrite:
    what: str
    route: Route | None = None
    socket: WebSocketRoute | None = None
    message: str | bytes = ""


def held_back(said: str, held: list[str]) -> ActionResult:
    """The result of an action whose writes wait for the person."""
    return ActionResult(outcome=Outcome.HELD, held=held,
                        message=f"{said} to {' | '.join(held)}, held back until the person says GO")


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}"


def _said(body: str | bytes | None) -> str:
    if not body:
        return ""
    text = body if isinstance(body, str) else body.decode("utf-8", "replace")
    text = " ".join(text.split())
    return f": {text[:SHOWN_BODY]}" + ("…" if len(text) > SHOWN_BODY else "")


class WriteHold:
    def __init__(self, token: str) -> None:
        self.armed = False
        self._token = token
        self._held: list[_HeldWrite] = []
        self._document: tuple[Page, object] | None = None  # the document the hold belongs to
        self._waiting: asyncio.Task[object] | None = None  # an action that waits on a held write
        self._context: BrowserContext | None = None
        self._routed = False
        self._passing = False  # a GO is being carried out: what it sets off goes through

    async def attach(self, context: BrowserContext) -> None:
        """The hold's script in every document from now on (after the gate's, which goes first)."""
        self._context = context
        await context.add_init_script(HOLD_JS.replace("__TOKEN__", json.dumps(self._token)))

    async def route_sockets(self, context: BrowserContext) -> None:
        """Every socket the context opens from now on passes the hold, which can then keep its
        messages when it is armed later. Independent of the scripts, and the slowest call of a
        run's start: asked beside them, not after."""
        await context.route_web_socket(_every_address, self._socket)

    async def _route(self, route: Route, request: Request) -> None:
        # While a GO is carried out only the document it submits passes (the held form's own post):
        # a script's write in that moment is not what the person approved, and is held as ever.
        if not self.armed or request.method in SAFE_METHODS or self._passing and request.is_navigation_request():
            await route.fallback()
            return
        # Left unanswered, the request waits in the browser until `release` or the browser closes.
        self._held.append(_HeldWrite(f"send {request.method} {_where(request.url)}{_said(request.post_data)}",
                                     route=route))

    def _socket(self, socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if self.armed:
                self._held.append(_HeldWrite(f"send a message to {_where(socket.url)}{_said(message)}",
                                             socket=server, message=message))
            else:
                server.send(message)

        socket.on_message(from_page)

    @property
    def waiting(self) -> bool:
        """An action is left waiting on a held write: the page may not answer until it is decided."""
        return self._waiting is not None and not self._waiting.done()

    async def begin(self, hold: bool, page: Page) -> None:
        """At the start of an action: holds the page's writes from now on when `hold`; else lifts
        a hold whose document is gone, once nothing it made can still be on its way."""
        if hold:
            self._document = (page, await _evaluate(page, DOCUMENT_JS))
            await self._arm(True, page)
        elif self.armed and not self._held and not await self._same_document():
            await self._arrivals(page)
            self._document = None
            await self._arm(False, page)

    async def _arrivals(self, page: Page) -> None:
        """Waits (a little) for every request the page has in flight to reach the route."""
        deadline = time.monotonic() + LIFT_WAIT_S
        while time.monotonic() < deadline and await _in_flight(page) > self._held_requests():
            await asyncio.sleep(0.02)

    async def _same_document(self) -> bool:
        if self._document is None:
            return False
        page, origin = self._document
        if page.is_closed():
            return False
        # A page between documents, or frozen, is still the one that was pressed, for now.
        now = await _evaluate(page, DOCUMENT_JS)
        return now is None or now == origin

    async def _arm(self, on: bool, page: Page) -> None:
        # Requests pass through Playwright only while a hold is armed: a route costs every request
        # of the context a round trip through the driver. Routed last, it is asked first; reads
        # fall through to the routes before it.
        if on and not self._routed and self._context is not None:
            await self._context.route("**/*", self._route)
            self._routed = True
        self.armed = on
        await _each_frame(page, PAGE_ARM_JS, [self._token, on])
        if not on and self._routed and self._context is not None:
            with contextlib.suppress(PlaywrightError):  # a context closing takes its routes along
                await self._context.unroute("**/*", self._route)
            self._routed = False

    async def run(self, action: Awaitable[T]) -> T | None:
        """The action's result; None when its write is held and it is left waiting for the GO."""
        if not self.armed:
            return await action
        task: asyncio.Task[T] = asyncio.ensure_future(action)
        seen: float | None = None
        while True:
            done, _ = await asyncio.wait({task}, timeout=0.05)
            if done:
                return task.result()
            if self._held_requests() and seen is None:
                seen = time.monotonic()
            if seen is not None and time.monotonic() - seen >= HELD_GRACE_S:
                self._waiting = task  # type: ignore[assignment]
                return None

    def _held_requests(self) -> int:
        return sum(write.route is not None for write in self._held)

    async def held(self, page: Page) -> list[str]:
        """What is held: the requests and socket messages, then (when the page can still be
        asked) what its frames hold for workers."""
        said = [write.what for write in self._held]
        if self.armed and not self.waiting:  # a page holds for workers only while goalbot holds
            await self._arrivals(page)
            said = [write.what for write in self._held] + [str(text) for text in await _each_frame(page, PAGE_HELD_JS)]
        return said

    @contextlib.asynccontextmanager
    async def passing(self, page: Page) -> AsyncIterator[None]:
        """While a GO is carried out: the document the released form submits passes the hold, so
        the form's own post is sent, not held again after the GO (and the tab, stuck between two
        documents, left answering nothing). Every other write is held as before it."""
        self._passing = True
        try:
            yield
        finally:
            self._passing = False

    async def release(self, page: Page) -> list[str]:
        """Lets every held write through, in the order the page made them; says which went."""
        taken, self._held = self._held, []
        sent: list[str] = []
        for write in taken:
            try:
                if write.route is not None:
                    await write.route.fallback()
                elif write.socket is not None:
                    write.socket.send(write.message)
                sent.append(write.what.removeprefix("send "))
            except PlaywrightError:
                continue  # the page or the socket went away while the write waited
        await self._end_waiting()
        sent += [str(text) for text in await _each_frame(page, PAGE_RELEASE_JS, self._token)]
        return sent

    async def drop(self, page: Page) -> None:
        """NOT GO: nothing held is sent; a page frozen on a held request gets an error instead."""
        taken, self._held = self._held, []
        for write in taken:
            if write.route is not None:
                with contextlib.suppress(PlaywrightError):
                    await write.route.abort("blockedbyclient")
        await self._end_waiting()
        await _each_frame(page, PAGE_DROP_JS, self._token)

    async def _end_waiting(self) -> None:
        task, self._waiting = self._waiting, None
        if task is None:
            return
        with contextlib.suppress(Exception):  # its end is not news: what it held was decided
            await asyncio.wait_for(task, SETTLE_AFTER_S)  # cancelled when it does not end in time


async def _each_frame(page: Page, script: str, arg: object = None) -> list[object]:
    """`script`'s answers in every frame of every tab, flattened; a frame that cannot answer is
    skipped."""
    answers: list[object] = []
    for tab in page.context.pages:
        for frame in tab.frames:
            answer = await _evaluate(frame, script, arg)
            answers += answer if isinstance(answer, list) else []
    return answers


async def _in_flight(page: Page) -> int:
    counted = [await _evaluate(frame, IN_FLIGHT_JS) for frame in page.frames]
    return sum(int(n) for n in counted if isinstance(n, (int, float)))  # a frame going away has none


async def _evaluate(target: Page | Frame, script: str, arg: object = None) -> object:
    """The script's answer, or None when it cannot give one soon: the frame is going away, or
    frozen by a held request."""
    try:
        return await asyncio.wait_for(target.evaluate(script, arg), EVALUATE_WAIT_S)
    except (PlaywrightError, asyncio.TimeoutError):
        return None


def _every_address(_url: str) -> bool:
    return True


class Unanswered(ActionFailed):
    """Work on a tab that waited for the site's answer and had its loading stopped."""

    def __init__(self, said: str, seconds: float, stopped: list[str]) -> None:
        super().__init__(Outcome.TIMEOUT, f"{said}; but the site did not answer within {seconds:g} s, so "
                         f"goalbot stopped loading {', '.join(stopped)}: what the page sent may or may not have "
                         "reached it, so look before doing it again")


async def answered_within(context: BrowserContext, work: Awaitable[T], seconds: float, what: str) -> T:
    """`work`'s result (`what` it does, in words), with a bound on how long a site may keep it
    waiting.

    A tab waiting for a navigation's answer answers no call, so `work` on it cannot end before the
    site answers, if ever. Each time `work` has run `seconds` more, a tab that answers nothing is
    stopped loading, as a person would press Stop, and `work` ends as Unanswered; a tab that
    answers is left alone, however long the work takes (a slow typist, a long wait). Raises
    OperatorError when `work` still does not end after that."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=seconds)
            if done:
                return task.result()
            stopped = await _stop_frozen_tabs(context, seconds)
            if stopped:
                break
        try:
            said = str(await asyncio.wait_for(task, UNFROZEN_WITHIN_S))
        except asyncio.TimeoutError as exc:  # cancelled: it would never end on its own
            raise OperatorError(f"the page stopped answering (nothing for {seconds:g} s, and stopping "
                                "its loading did not help)") from exc
        except (ActionFailed, PlaywrightError):  # its own verdict came from a page that was cut off
            said = what
        raise Unanswered(said, seconds, stopped)
    finally:
        task.cancel()  # a caller cut short (a stop, its own bound) takes the work along; done work ignores it


async def carried_out(context: BrowserContext, release: Awaitable[str]) -> str:
    """What `release` (letting through what a GO was given for) says it did, within
    ANSWER_WITHIN_S; Unanswered when the site kept the page waiting."""
    try:
        return await answered_within(context, release, ANSWER_WITHIN_S, "let through what the GO was given for")
    except PlaywrightError as exc:
        raise ActionFailed(Outcome.NAVIGATION_FAILED, f"the page failed after the GO ({str(exc).splitlines()[0]}): "
                           "what was held may or may not have been sent") from exc


async def _stop_frozen_tabs(context: BrowserContext, seconds: float = ANSWER_WITHIN_S) -> list[str]:
    """Stops the loading of every tab that answers nothing, or that has been leaving for another
    document for `seconds` (a navigation the site never answers: a link's GET keeps the old
    document answering meanwhile); the addresses of those stopped. Any other tab is left loading:
    stopping it would cut its requests, among them what a GO let through."""
    stopped: list[str] = []
    for tab in context.pages:
        if tab.is_closed():
            continue
        leaving = await _evaluate(tab, LEAVING_FOR_JS)
        if leaving is not None and not (isinstance(leaving, (int, float)) and leaving >= seconds * 1000 * 0.9):
            continue
        with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
            session = await context.new_cdp_session(tab)
            await asyncio.wait_for(session.send("Page.stopLoading"), EVALUATE_WAIT_S)
            stopped.append(_where(tab.url) or "a tab")
            with contextlib.suppress(PlaywrightError):
                await session.detach()
    return stopped

"""The page's writes, held back while an action is judged by what it does.

A control whose words say it sends ("Reply", "Send", "Share") may only open a form, or it may
post. Rather than ask the person before every such press, goalbot presses it with the page's
writes held: every request that is not a read (HTTP's safe methods GET, HEAD and OPTIONS are
reads) and every message the page sends over a WebSocket waits inside Playwright until the person
says GO. A press that only opens a form sends nothing and needs no GO. The hold stays on until the
next action starts, so a write the page puts off for a moment is held too; what is never let
through is never sent.

A request reaches the route a moment after the page makes it. A hold lifted in that moment would
let through a write the page made while it was on; so a hold is lifted only once every request the
page has in flight (fetch and XMLHttpRequest, counted by watch.js) is one of those held.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Page, Request, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SHOWN_BODY = 120
LIFT_WAIT_S = 1.0  # a read in flight longer than this (a long poll) does not keep the hold on
IN_FLIGHT_JS = "() => window.__goalbotWatch ? window.__goalbotWatch.requests : 0"


@dataclass
class _HeldWrite:
    what: str
    route: Route | None = None
    socket: WebSocketRoute | None = None
    message: str | bytes = ""


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
    def __init__(self) -> None:
        self.armed = False
        self._held: list[_HeldWrite] = []

    async def attach(self, context: BrowserContext) -> None:
        """Registered after every other route, so it is asked first; reads fall through."""
        await context.route("**/*", self._route)
        await context.route_web_socket(_every_address, self._socket)

    async def _route(self, route: Route, request: Request) -> None:
        if not self.armed or request.method in SAFE_METHODS:
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

    def held(self) -> list[str]:
        return [write.what for write in self._held]

    async def arm(self, on: bool, page: Page) -> None:
        """Holds the page's writes from now on, or lifts the hold once nothing the page made while
        it was on can still be on its way to the route."""
        if self.armed and not on:
            deadline = time.monotonic() + LIFT_WAIT_S
            while time.monotonic() < deadline and await _in_flight(page) > self._held_requests():
                await asyncio.sleep(0.02)
        self.armed = on

    def _held_requests(self) -> int:
        return sum(write.route is not None for write in self._held)

    async def release(self) -> list[str]:
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
        return sent


async def _in_flight(page: Page) -> int:
    counted = 0
    for frame in page.frames:
        try:
            counted += int(await frame.evaluate(IN_FLIGHT_JS))
        except PlaywrightError:
            continue  # a frame going away has nothing on its way
    return counted


def _every_address(_url: str) -> bool:
    return True

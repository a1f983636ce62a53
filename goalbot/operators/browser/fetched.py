"""The JSON a run's pages fetched, kept in memory for `extract` to find its data in (and for a
rerun to read it from, with no model). Only what carries no one's credentials is kept:

- a GET by `fetch` or XHR, answered 2xx with JSON, from the same site as the page that asked;
- whose request sent no cookie, no `Authorization` and no header named like a key or a token, and
  named none in its query; whose answer set no cookie; and whose body has no field named like a
  password, a token, a key or a secret.

Nothing here is written anywhere: a body lives until the run ends or newer ones push it out, and
only the place found in it (an address and a path) reaches the store."""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from playwright.async_api import BrowserContext, Response
from playwright.async_api import Error as PlaywrightError

from goalbot.operators.json_places import Fetched

MOST_KEPT = 40  # responses: a page's data calls, not its every poll
MOST_BYTES = 4_000_000  # one body: a list of some thousands of rows
MOST_KEPT_BYTES = 16_000_000  # every body kept at once: a batch worker runs many runs side by side
PATIENCE_S = 2.0  # how long a read waits for bodies still arriving
# Words of a name that say it holds a credential ("X-Api-Key", "accessToken", "session_id"),
# matched as whole words: an "author" or a "keyboard" field is data.
CREDENTIAL_WORDS = {"cookie", "authorization", "auth", "token", "secret", "password", "passwd", "pwd", "session",
                    "sid", "csrf", "xsrf", "bearer", "signature", "otp", "apikey", "credential", "credentials"}
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


class FetchedLog:
    def __init__(self) -> None:
        self._kept: deque[tuple[Fetched, int]] = deque()
        self._bytes = 0
        self._pending: set[asyncio.Task[None]] = set()

    def attach(self, context: BrowserContext) -> None:
        context.on("response", self._answered)

    async def fetched(self) -> list[Fetched]:
        """What is kept, once the bodies still being read are in (within a bound)."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=PATIENCE_S)
        return [fetched for fetched, _ in self._kept]

    def _answered(self, response: Response) -> None:
        if _may_keep(response):
            task = asyncio.ensure_future(self._read(response))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _read(self, response: Response) -> None:
        try:
            sent, answered = await response.request.all_headers(), await response.all_headers()
            if any(credential_name(name) for name in sent) or "set-cookie" in answered:
                return
            if int(answered.get("content-length") or 0) > MOST_BYTES:
                return
            raw = await response.body()
        except PlaywrightError:
            return  # the page or its context closed first
        if len(raw) > MOST_BYTES:
            return
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return
        if not names_credentials(body):
            self._keep(Fetched(url=response.url, body=body), len(raw))

    def _keep(self, fetched: Fetched, size: int) -> None:
        self._kept.append((fetched, size))
        self._bytes += size
        while len(self._kept) > MOST_KEPT or self._bytes > MOST_KEPT_BYTES:
            self._bytes -= self._kept.popleft()[1]


def _may_keep(response: Response) -> bool:
    request = response.request
    if request.method != "GET" or request.resource_type not in ("fetch", "xhr") or not 200 <= response.status < 300:
        return False
    if "json" not in response.headers.get("content-type", ""):
        return False
    if any(credential_name(name) for name, _ in parse_qsl(urlsplit(response.url).query)):
        return False
    try:
        page_url = request.frame.page.url
    except PlaywrightError:
        return False
    return _site(response.url) == _site(page_url)


def credential_name(name: str) -> bool:
    words = [word.lower() for word in WORD.findall(name)]
    return bool(CREDENTIAL_WORDS.intersection(words)) or any(
        first == "api" and second == "key" for first, second in zip(words, words[1:]))


def _site(url: str) -> str:
    """The scheme and the registrable part of the host, near enough: the last two labels of a name."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    name = host if re.fullmatch(r"[\d.]+|\[.*\]|[^.]+", host) else ".".join(host.split(".")[-2:])
    return f"{parts.scheme}://{name}:{parts.port or ''}"


def names_credentials(body: Any, depth: int = 0) -> bool:
    """A field named like a password, token, key or secret, at any depth (a bounded walk)."""
    if depth > 12:
        return True  # deeper than any data a page draws: not worth the risk
    if isinstance(body, dict):
        return any(credential_name(str(key)) or names_credentials(value, depth + 1) for key, value in body.items())
    if isinstance(body, list):
        return any(names_credentials(item, depth + 1) for item in body[:2000])
    return False

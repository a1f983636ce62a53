"""The JSON a run's pages fetched, kept in memory for `extract` to find its data in (and for a
rerun to read it from, with no model). A signed-in page's own data is read like any other; what
makes that safe is what is kept of it:

- only a GET by `fetch` or XHR, answered 2xx with JSON, whose every hop (a redirect's too) is on
  the same site as the page that asked: another site never answers for the page;
- of its body, nothing that is or names a credential: a field named like one (`session_id`,
  `jwt`, `X-Access-Key`), a value shaped like one (a JWT, `Bearer …`, long hex, high-entropy
  base64) or one the request itself carried (a cookie's value, its `Authorization`) is dropped
  before anything reads the body, keys and list items alike;
- of its address, the path with any segment that is a token made `*` (so a rerun with a new token
  still finds it) and the query's names only, never a value.

Nothing here is written anywhere: a body lives until the run ends or newer ones push it out, and
only the place found in it (an address and a path) reaches the store."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import math
import re
import socket
from collections import Counter, deque
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from playwright.async_api import BrowserContext, Request, Response
from playwright.async_api import Error as PlaywrightError

from goalbot.operators.json_places import Fetched

MOST_KEPT = 40  # responses: a page's data calls, not its every poll
MOST_BYTES = 4_000_000  # one body: a list of some thousands of rows
MOST_KEPT_BYTES = 16_000_000  # every body kept at once: a batch worker runs many runs side by side
MOST_HOPS = 20  # redirects followed back to the request the page made (Chromium stops at 20)
PATIENCE_S = 2.0  # how long a read waits for bodies still arriving
DEEPEST = 12  # deeper than any data a page draws: a body nested further is not worth the risk
# Words of a name that say it holds a credential ("X-Api-Key", "accessToken", "session_id"),
# matched as whole words: an "author" or a "keyboard" field is data.
CREDENTIAL_WORDS = {"cookie", "authorization", "auth", "token", "secret", "password", "passwd", "pwd", "session",
                    "sid", "csrf", "xsrf", "bearer", "signature", "otp", "apikey", "credential", "credentials",
                    "sessionid", "sessid", "phpsessid", "jsessionid", "sess", "jwt", "sig", "hmac", "passcode",
                    "passphrase", "pin", "cvv", "cvc", "saml", "oauth", "sso", "nonce", "assertion"}
# "key" alone is data in a body (an issue's key, a translation's key) but a key in an address or
# a header, and a credential beside these words in any name ("access_key", "X-Access-Key").
KEY_PARTNERS = {"api", "access", "secret", "private", "signing", "client", "master", "session", "auth", "license",
                "encryption", "app", "account", "subscription", "x"}
# Names run together with no separator to split them on ("accesstoken", "PHPSESSID").
CREDENTIAL_INSIDE = ("passw", "clientsecret", "sessionid", "sessid", "apikey", "accesskey", "privatekey", "secretkey",
                     "jwt", "csrf", "xsrf", "bearer", "credential", "authtoken", "accesstoken", "refreshtoken",
                     "idtoken", "sessiontoken", "signature")
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
JWT = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
AUTH_SCHEME = re.compile(r"\b(?:bearer|basic|token|digest|negotiate|hoba|mac)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
KNOWN_PREFIX = re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}"
                          r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}")
HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])|[0-9a-fA-F]{40,}")
TOKEN_RUN = re.compile(r"[A-Za-z0-9+/_=-]{20,}")
# A record's id, as databases make them: data, not a credential (a session's is caught by its name).
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
SHORTEST_SENT = 6  # a cookie's value shorter than this ("dark", "1") is a setting, not a credential
SHORTEST_SHAPED = 14  # the shortest a value the shapes above match can be ("Basic " and 8 more)
MOST_REMEMBERED = 200  # characters of a value whose verdict is cached: a page's words, not its bodies


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
        if not await _answered_where_it_says(response):
            return
        try:
            sent, answered = await response.request.all_headers(), await response.all_headers()
            if int(answered.get("content-length") or 0) > MOST_BYTES:
                return
            raw = await response.body()
        except PlaywrightError:
            return  # the page or its context closed first
        if len(raw) > MOST_BYTES:
            return
        carried = carried_credentials(response.url, sent, answered)
        # Parsing and sifting a body of thousands of rows takes a while: not on the run's loop.
        kept = await asyncio.to_thread(_sifted, raw, carried)
        if kept is not _NOT_KEPT:
            self._keep(Fetched(url=generalised(response.url, carried), body=kept), len(raw))

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
    try:
        page_site = _site(request.frame.page.url)
    except PlaywrightError:
        return False
    # The page's own site answers, and asked at every hop: a redirect through another site lets
    # that site say what the data is, even when the chain ends back home.
    hops = _hops(request)
    return hops is not None and all(_site(url) == page_site for url in [response.url, *hops])


async def _answered_where_it_says(response: Response) -> bool:
    """Whether the server that answered is at the response's address. When Chromium's requests
    are routed (the domain guard's), Playwright may report a redirected fetch's answer under the
    first hop's address with no redirect in sight: the other site's server gives it away."""
    try:
        server = await response.server_addr()
    except PlaywrightError:
        return False
    parts = urlsplit(response.url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return False
    if not server or server.get("port") != port or not parts.hostname:
        return False  # no server to tell (a cache, a worker's answer): not known to be the page's site
    answered = _ip(server.get("ipAddress", ""))
    named = _ip(parts.hostname)
    if named is not None or answered is None:
        return named is not None and named == answered
    try:
        found = await asyncio.get_running_loop().getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return answered in {_ip(str(info[4][0])) for info in found}


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return mapped or address


def _hops(request: Request) -> list[str] | None:
    """The address of each request the redirects went through, the last first; None for a chain
    longer than a browser follows, whose start is not known."""
    hops: list[str] = []
    hop: Request | None = request
    while hop is not None:
        if len(hops) > MOST_HOPS:
            return None
        hops.append(hop.url)
        hop = hop.redirected_from
    return hops


@lru_cache(maxsize=4096)  # a list's rows repeat their field names
def credential_name(name: str, alone_key: bool = False) -> bool:
    """Whether a field's, header's or query's name says it holds a credential. `alone_key`: a bare
    "key" counts (as in an address or a header, where it is an API key)."""
    words = [word.lower() for word in WORD.findall(name)]
    if CREDENTIAL_WORDS.intersection(words):
        return True
    if "key" in words and (alone_key or KEY_PARTNERS.intersection(words)):
        return True
    joined = "".join(words)
    return any(inside in joined for inside in CREDENTIAL_INSIDE)


def looks_like_credential(value: str, carried: frozenset[str] = frozenset()) -> bool:
    """Whether a value is shaped like a credential (a JWT, an auth scheme and its token, a known
    provider's key, long hex, a long high-entropy run) or holds one the request carried."""
    if any(sent in value for sent in carried):
        return True
    if len(value) < SHORTEST_SHAPED:
        return False
    return _shaped_like_credential(value) if len(value) > MOST_REMEMBERED else _remembered_shape(value)


@lru_cache(maxsize=65_536)  # a list's rows repeat their values: each short one is looked at once a body
def _remembered_shape(value: str) -> bool:
    return _shaped_like_credential(value)


def _shaped_like_credential(value: str) -> bool:
    if JWT.search(value) or AUTH_SCHEME.search(value) or KNOWN_PREFIX.search(value) or HEX_RUN.search(value):
        return True
    return any(_random_looking(run) for run in TOKEN_RUN.findall(UUID.sub("-", value)))


def _random_looking(run: str) -> bool:
    """A run with no spaces, of letters in both cases and digits, as varied as random text is: a
    slug ("best-shoes-2026") or a date is not, a base64 token is."""
    letters = run.replace("-", "").replace("_", "").replace("=", "")
    has = (any(c.isupper() for c in letters), any(c.islower() for c in letters),
           sum(c.isdigit() for c in letters))
    mixed = has[0] and has[1] and has[2] >= 2
    one_case = (has[0] != has[1]) and has[2] >= max(3, len(letters) // 5) and len(letters) >= 32
    bits = _bits_per_char(letters)
    # Long random text may chance to hold no digit; English run together ("ARunOfCamelCaseWords")
    # stays under 4.3 bits a character, base64 is near 4.7.
    long_mixed = has[0] and has[1] and len(letters) >= 36 and bits >= 4.3
    return ((mixed or one_case) and bits >= 3.6) or long_mixed


def _bits_per_char(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


def carried_credentials(url: str, sent: dict[str, str], answered: dict[str, str]) -> frozenset[str]:
    """The values of credentials this exchange carried: its cookies (sent and set), its
    `Authorization`, headers and query fields named like a credential, and their tokens alone."""
    found: set[str] = set()
    for name, value in sent.items():
        if name == "cookie":
            found |= {v for _, v in (_pair(c) for c in value.split(";")) if len(v) >= SHORTEST_SENT}
        elif credential_name(name, alone_key=True):
            found |= {value, *value.split()[1:]}
    for line in answered.get("set-cookie", "").split("\n"):
        _, value = _pair(line.split(";")[0])
        if len(value) >= SHORTEST_SENT:
            found.add(value)
    for name, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if credential_name(name, alone_key=True) or looks_like_credential(value):
            found.add(value)
    return frozenset(v for v in found if len(v) >= SHORTEST_SENT)


def _pair(text: str) -> tuple[str, str]:
    name, _, value = text.strip().partition("=")
    return name.strip(), unquote(value.strip().strip('"'))


def generalised(url: str, carried: frozenset[str] = frozenset()) -> str:
    """`url` as it may be kept: each path segment that is a token becomes `*`, and of the query
    only the names that are not tokens themselves, with no value."""
    parts = urlsplit(url)
    segments = ["*" if looks_like_credential(unquote(s), carried) else s for s in parts.path.split("/")]
    names = sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)
                    if not looks_like_credential(name, carried)})
    query = "&".join(f"{quote(name, safe='')}=" for name in names)
    host = parts.netloc.rpartition("@")[2]  # a name and password in an address are never kept
    return f"{parts.scheme}://{host}{'/'.join(segments)}" + (f"?{query}" if query else "")


class _NotKept:
    pass


_NOT_KEPT: Any = _NotKept()


def _sifted(raw: bytes, carried: frozenset[str]) -> Any:
    """The body as it may be kept; `_NOT_KEPT` for one that is not JSON or is nested past data."""
    try:
        return without_credentials(json.loads(raw), carried)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return _NOT_KEPT
    finally:  # what was remembered of this body's words (its tokens among them) goes with it
        _remembered_shape.cache_clear()
        credential_name.cache_clear()


def without_credentials(body: Any, carried: frozenset[str] = frozenset(), depth: int = 0) -> Any:
    """`body` with every field named like a credential, or whose key or value is shaped like one,
    left out (a list's such item becomes null, so the others keep their places). A body nested
    deeper than data is, is `_NOT_KEPT`."""
    if depth > DEEPEST:
        return _NOT_KEPT
    if isinstance(body, str):
        return None if looks_like_credential(body, carried) else body
    if isinstance(body, dict):
        kept: dict[str, Any] = {}
        for key, value in body.items():
            if credential_name(str(key)) or looks_like_credential(str(key), carried):
                continue
            inner = without_credentials(value, carried, depth + 1)
            if inner is _NOT_KEPT:
                return _NOT_KEPT
            if inner is not None or value is None:
                kept[key] = inner
        return kept
    if isinstance(body, list):
        items = [without_credentials(item, carried, depth + 1) for item in body]
        return _NOT_KEPT if any(item is _NOT_KEPT for item in items) else items
    return body


def names_credentials(body: Any, depth: int = 0) -> bool:
    """A field named like a credential, or a key or value shaped like one, at any depth."""
    return without_credentials(body, frozenset(), depth) != body


def _site(url: str) -> str:
    """The scheme, the registrable part of the host (near enough: the last two labels of a name,
    three under a country's second level, as `shop.co.uk`) and the port."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    labels = host.split(".")
    if re.fullmatch(r"[\d.]+|\[.*\]|[^.]+", host):
        name = host
    elif len(labels) >= 3 and len(labels[-1]) == 2 and (len(labels[-2]) <= 3 or labels[-2] in _SECOND_LEVELS):
        name = ".".join(labels[-3:])
    else:
        name = ".".join(labels[-2:])
    try:
        port = parts.port or ""
    except ValueError:
        port = "?"
    return f"{parts.scheme}://{name}:{port}"


_SECOND_LEVELS = {"gouv", "govt", "school", "police", "nhs", "ltd", "plc", "kiwi"}

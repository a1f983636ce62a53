"""Who may talk to `goalbot mcp --http`, and as whom. Web pages are kept out by the SDK's Host and
Origin checks; local processes by a bearer token. The server keeps one key in a file only its user
can read (made on its first start); each host's token is a name and that name sealed with the key,
so hosts given tokens under different names are different clients, told apart with no table to
keep. A client sees and steers only the runs it started. Over stdio the process is the boundary."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping

from goalbot.text.regular_file import NotRegularFile, read_regular

KEY_FILE = "mcp-key"
KEY_MOST_BYTES = 4096
CLIENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
STDIO = "stdio"  # the one client of a server on stdio
ASGI = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
                Awaitable[None]]


class AccessError(Exception):
    """The key cannot be made or read safely; the message says what to do."""


@dataclass(frozen=True)
class Keyring:
    key: bytes

    @classmethod
    def at(cls, folder: Path) -> Keyring:
        """The server's key in `folder`, made on first use; refused when others could read it."""
        path = folder / KEY_FILE
        try:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass
            else:
                with os.fdopen(descriptor, "w") as made:
                    made.write(secrets.token_urlsafe(32) + "\n")
            mode = path.stat().st_mode
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise AccessError(f"{path} can be read by others (mode {stat.filemode(mode)}): chmod 600 {path}, "
                                  "or delete it to make a new key (every host then needs its new token)")
            # Not read_text: a FIFO put in the key's place would hang every command that needs the key.
            key = read_regular(path, KEY_MOST_BYTES).decode("utf-8", errors="replace").strip()
        except NotRegularFile as exc:
            raise AccessError(f"the MCP key {path} is refused: {exc.strerror}; delete it, and a new one "
                              "is made (every host then needs its new token)") from exc
        except OSError as exc:
            raise AccessError(f"cannot keep the MCP key in {path}: {exc.strerror}") from exc
        if len(key) < 32:
            raise AccessError(f"{path} holds no usable key: delete it, and a new one is made")
        return cls(key.encode("utf-8"))

    def token(self, client: str) -> str:
        """The bearer token of the client `client` (a host's name)."""
        if not CLIENT_NAME.fullmatch(client):
            raise AccessError(f"a client's name is 1 to 40 letters, digits, _ or - (got {client!r})")
        return f"{client}.{self._mac(client)}"

    def client_of(self, authorization: str | None) -> str | None:
        """The client a request's Authorization header proves, or None; compared in constant time."""
        scheme, _, token = (authorization or "").partition(" ")
        name, dot, mac = token.strip().partition(".")
        if scheme.lower() != "bearer" or not dot or not CLIENT_NAME.fullmatch(name):
            return None
        return name if hmac.compare_digest(self._mac(name), mac) else None

    def _mac(self, client: str) -> str:
        return hmac.new(self.key, f"goalbot-mcp:{client}".encode("utf-8"), hashlib.sha256).hexdigest()


def requiring_token(app: ASGI, keyring: Keyring) -> ASGI:
    """`app` behind the bearer token: every HTTP request without a valid one is answered 401."""

    async def guarded(scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]],
                      send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        if scope["type"] == "http":
            headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
            if keyring.client_of(headers.get("authorization")) is None:
                body = b'{"error": "unauthorized", "hint": "send Authorization: Bearer TOKEN (goalbot mcp --print-config)"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


def client_of_request(headers: Mapping[str, str] | None, keyring: Keyring | None) -> str:
    """Who is asking: over stdio the one host; over HTTP the client its token names, and within one
    legacy connection its session (a host that reconnects is a new client to its old runs)."""
    if headers is None or keyring is None:
        return STDIO
    lowered = {name.lower(): value for name, value in headers.items()}
    client = keyring.client_of(lowered.get("authorization")) or "?"
    session = lowered.get("mcp-session-id")
    return f"{client}/{session}" if session else client

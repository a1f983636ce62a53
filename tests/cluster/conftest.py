"""The cluster's tests share one redis-server and the workers a test starts, each test its own."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from cluster_kit import Redis, Workers, start_redis


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Redis]:
    yield from start_redis(tmp_path)


@pytest.fixture
def workers(redis_server: Redis, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(redis_server, tmp_path, model_url="")
    yield started
    started.stop()

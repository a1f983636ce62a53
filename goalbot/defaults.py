"""Every default a person can change, written once: the agents' models, the model client, the
settings and the help text of each flag all read it from here."""

from __future__ import annotations

import os
from pathlib import Path

MAX_STEPS = 20
MAX_FAILURES = 5
MAX_ACTIONS_PER_STEP = 5
APPROVAL_TIMEOUT_S = 300.0
MIN_INTERVAL_S = 0.5
BURST = 3  # actions before the interval paces them
PICTURE_INTERVAL_S = 2.0  # screenshots kept for replay when nobody watches live
CLICKS_PER_MINUTE = 20
MODEL_TIMEOUT_S = 120.0
MODEL_RETRIES = 4
OBSERVATION_BUDGET = 8_000  # characters an observation may take
DEMO_PORT = 8765  # `goalbot demo --serve-only`: the site here, its model on the next port


def data_home() -> Path:
    """Where goalbot keeps what it makes (the store, browser profiles): $XDG_DATA_HOME/goalbot."""
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(home) / "goalbot"

"""Every default a person can change, written once: the agents' models, the model client, the
settings and the help text of each flag all read it from here."""

from __future__ import annotations

MAX_STEPS = 20
MAX_FAILURES = 5
MAX_ACTIONS_PER_STEP = 5
APPROVAL_TIMEOUT_S = 300.0
MIN_INTERVAL_S = 0.5
CLICKS_PER_MINUTE = 20
MODEL_TIMEOUT_S = 120.0
MODEL_RETRIES = 4
OBSERVATION_BUDGET = 8_000  # characters an observation may take

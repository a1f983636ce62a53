"""What a run's loop ending by an exception means for the session: one reading, for a run and a
recipe's rerun alike."""

from __future__ import annotations

import asyncio
import traceback

from goalbot.agents.guards import NotGo
from goalbot.agents.navigator import TooManyFailures
from goalbot.agents.outcome import Finish, SessionResult, Status
from goalbot.llm.client import BudgetStop, ModelError
from goalbot.operators.base import OperatorError


def ended_by(exc: BaseException, stop_reason: str = "stopped by the person") -> SessionResult:
    """The result of a run its loop left by `exc`. Re-raises what is not the run's to end (Ctrl-C
    reaching Python, an exit)."""
    if isinstance(exc, Finish):
        return exc.result
    if isinstance(exc, asyncio.CancelledError):
        return SessionResult(status=Status.CANCELLED, reason=stop_reason)
    if isinstance(exc, (NotGo, BudgetStop)):
        return SessionResult(status=Status.CANCELLED, reason=str(exc))
    if isinstance(exc, (OperatorError, ModelError, TooManyFailures)):
        return SessionResult(status=Status.FAILED, reason=str(exc))
    if isinstance(exc, Exception):  # a bug must still end the session on record, not leave it running
        # The traceback is kept in the store for a bug report, never printed over the dashboard.
        return SessionResult(status=Status.FAILED, reason=f"unexpected error: {type(exc).__name__}: {exc}",
                             detail="".join(traceback.format_exception(exc)))
    raise exc

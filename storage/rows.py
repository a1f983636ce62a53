"""A stored session as every reader gets it: typed fields, never a dict read by key."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from goalbot.events import RunStatus

_COUNTS = ("steps", "model_calls", "model_errors", "tokens_in", "tokens_out")


class SessionRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    goal: str = ""
    url: str | None = None
    status: str = RunStatus.RUNNING  # a RunStatus word; an older or damaged store may hold another
    finish_reason: str | None = None
    answer: str | None = None
    model: str | None = None
    base_url: str | None = None
    operator: str | None = None
    started_at: str = ""
    ended_at: str | None = None
    steps: int = 0
    model_calls: int = 0
    model_errors: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    pid: int | None = None
    host: str | None = None
    report: str | None = None

    @field_validator(*_COUNTS, mode="before")
    @classmethod
    def _none_is_zero(cls, value: Any) -> Any:
        return 0 if value is None else value

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @property
    def running(self) -> bool:
        return self.status == RunStatus.RUNNING

    @classmethod
    def of(cls, row: dict[str, Any]) -> SessionRow:
        """The row as stored. A value of the wrong type (a store written by hand, or damaged) is
        kept as it is rather than refused: every session stays listable and deletable."""
        try:
            return cls.model_validate(row)
        except ValidationError:
            known = {key: value for key, value in row.items() if key in cls.model_fields}
            return cls.model_construct(**{"id": str(row.get("id", "")), **known})

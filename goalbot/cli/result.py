"""What `--json` prints and `--output` writes when a run ends: one JSON document."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from goalbot.agents.outcome import SessionResult, Status
from goalbot.payloads import ExtractedData


class RunResult(BaseModel):
    session: str
    status: str
    result: Any = Field(None, description="The data that fits --output-schema, else the answer in words; "
                                          "null when there is none.")
    valid: bool = Field(description="False when the data does not fit the schema, or the run did not succeed.")
    errors: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, session_id: str, ended: SessionResult, extracted: ExtractedData | None) -> RunResult:
        ok = ended.status is Status.OK
        if extracted is not None:
            return cls(session=session_id, status=ended.status.value, valid=extracted.valid and ok,
                       result=extracted.data if extracted.valid else None, errors=extracted.errors)
        return cls(session=session_id, status=ended.status.value, result=ended.answer or None, valid=ok,
                   errors=[] if ok else [ended.reason])

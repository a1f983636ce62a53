"""What a run leaves for whoever started it: one JSON document (`--json`, `--output`, the Python API)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from goalbot.agents.outcome import SessionResult, Status
from goalbot.events import Event, EventType
from goalbot.payloads import ActionData, ChosenData, ExtractedData


class Choice(BaseModel):
    """One choice a run made by a policy, and the element it clicked for it (null when it did not)."""

    policy: str
    rules: str = Field(description="The policy in words, with the values the run was given.")
    source: str = Field(description="The key (or key.path) of the candidates.")
    chosen: Any = None
    clicked: dict[str, Any] | None = Field(None, description="The role and name of the element clicked.")


class Choices:
    """What a run chose and clicked, gathered from its events as they come."""

    def __init__(self) -> None:
        self.made: list[Choice] = []

    def hear(self, event: Event) -> None:
        if event.type is EventType.CHOSEN:
            chosen = event.data_of(ChosenData)
            self.made.append(Choice(policy=chosen.policy, rules=chosen.rules, source=chosen.from_,
                                    chosen=chosen.chosen))
        elif event.type is EventType.ACT_OK and self.made and self.made[-1].clicked is None:
            acted = event.data_of(ActionData)
            if acted.action.name == "click" and acted.action.arg("chosen") is not None:
                self.made[-1].clicked = acted.target or {"index": acted.action.arg("index")}


class RunResult(BaseModel):
    session: str
    status: str
    result: Any = Field(None, description="The data that fits --output-schema, else the answer in words; "
                                          "null when there is none.")
    valid: bool = Field(description="False when the data does not fit the schema, or the run did not succeed.")
    errors: list[str] = Field(default_factory=list)
    chosen: list[Choice] = Field(default_factory=list, description="What the run chose by its policies, and "
                                                                   "what it clicked for each.")

    @classmethod
    def of(cls, session_id: str, ended: SessionResult, extracted: ExtractedData | None,
           chosen: list[Choice] | None = None) -> RunResult:
        ok, made = ended.status is Status.OK, chosen or []
        if extracted is not None:
            return cls(session=session_id, status=ended.status.value, valid=extracted.valid and ok,
                       result=extracted.data if extracted.valid else None, errors=extracted.errors, chosen=made)
        return cls(session=session_id, status=ended.status.value, result=ended.answer or None, valid=ok,
                   errors=[] if ok else [ended.reason], chosen=made)

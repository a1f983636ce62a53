"""Data out of the page and choices made on it, for a run and a rerun alike: `extract` reads data
shaped by a schema (down the reading ladder of reading.py, the model last) and `choose` takes one
candidate by a choice policy, clicking it through the same hands as every other action. Each is
an `ACT_START`, an `EXTRACTED` or `CHOSEN` with what was read or why that one was taken, and an
`ACT_OK` or an `ACT_FAIL` with a typed error (`ExtractionInvalid`; `ExtractionEmpty` for an answer with
no records from a page that shows some; `ExtractionShort` for fewer than the page says it holds;
`NoCandidate`)."""

from __future__ import annotations

import json
from typing import Any

from goalbot import actions as A
from goalbot.agents.acting import Hands
from goalbot.agents.choosing import Choice, NoCandidate, Policy, PolicyError, choose, policies_of
from goalbot.agents.extractor import Extractor
from goalbot.agents.outcome import Status, finish
from goalbot.agents.person import Person
from goalbot.agents.reading import Gathered, Kept, Reader, Reading
from goalbot.agents.records import records_in
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.extraction import SchemaError, checked
from goalbot.operators.base import Observation, Operator

__all__ = ["Gathered", "Gatherer", "Kept", "Reading"]


class Gatherer:
    def __init__(self, operator: Operator, emitter: Emitter, hands: Hands, person: Person,
                 extractor: Extractor | None, schemas: dict[str, dict[str, Any]],
                 policies: dict[str, Policy], variables: dict[str, str]) -> None:
        self.operator, self.emitter, self.hands, self.person = operator, emitter, hands, person
        self.schemas, self.policies, self.variables = schemas, policies, variables
        self.reader = Reader(operator, emitter, hands, extractor)

    @property
    def kept(self) -> dict[str, Kept]:
        return self.reader.kept

    def schema_for(self, wanted: str | dict[str, Any]) -> dict[str, Any]:
        """The schema an `extract` names, or the one it writes inline, checked; SchemaError otherwise."""
        if isinstance(wanted, dict):
            return checked(wanted, "the inline schema")
        if not wanted:
            if len(self.schemas) == 1:
                return next(iter(self.schemas.values()))
            raise SchemaError("name the schema to extract with: " + (", ".join(self.schemas) or
                              "this run was given none, so write one inline"))
        if wanted not in self.schemas:
            raise SchemaError(f"no schema is named {wanted!r}; this run has: {', '.join(self.schemas) or 'none'}")
        return self.schemas[wanted]

    async def extract(self, key: str, reading: Reading, observation: Observation, step: int,
                      shown: dict[str, Any]) -> Gathered:
        self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown, target=None)
        return self._ended(shown, step, await self.read(key, reading, observation, step))

    async def read(self, key: str, reading: Reading, observation: Observation, step: int) -> Gathered:
        """Reads `key` and keeps it; the EXTRACTED event says how, with no action around it."""
        return await self.reader.read(key, reading, observation, step)

    def _ended(self, shown: dict[str, Any], step: int, gathered: Gathered) -> Gathered:
        if gathered.ok:
            self.emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, step, action=shown, message=gathered.message)
        else:
            self.emitter.emit(EventType.ACT_FAIL, Actor.NAVIGATOR, step, action=shown, message=gathered.message,
                              error=gathered.error)
        return gathered

    def policy_for(self, wanted: str | dict[str, Any]) -> tuple[str, Policy]:
        """The policy a `choose` names, or the one it writes inline; PolicyError otherwise."""
        if isinstance(wanted, dict):
            return "inline", policies_of({"inline": wanted}, "the inline policy")["inline"]
        if wanted not in self.policies:
            raise PolicyError(f"no policy is named {wanted!r}; this run has: {', '.join(self.policies) or 'none'}")
        return wanted, self.policies[wanted]

    async def choose(self, action: A.Choose, observation: Observation, step: int,
                     shown: dict[str, Any]) -> tuple[Gathered, Observation]:
        """Applies the policy; with `act`, clicks the chosen candidate. A policy that leaves no
        candidate is a checkpoint: GO reads the candidates again and chooses again, once."""
        self.emitter.emit(EventType.ACT_START, Actor.NAVIGATOR, step, action=shown, target=None)
        try:
            name, policy = self.policy_for(action.policy)
            choice = self._choice(action.from_, name, policy)
        except (PolicyError, LookupError) as exc:
            return self._ended(shown, step, Gathered(ok=False, error="BadChoice", message=str(exc))), observation
        except NoCandidate as none:
            self._emit_choice(action.from_, policy, none.choice, None, step)
            what = (f"{none}: nothing to take from {action.from_}. Put the page right and say GO to read it "
                    "again and choose again, or NOT GO to stop")
            if not await self.person.checkpoint(what, step):
                self._ended(shown, step, Gathered(ok=False, error="NoCandidate", message=str(none)))
                raise finish(Status.CANCELLED, f"NOT GO at the checkpoint: {none}") from None
            key = action.from_.split(".")[0]
            again = await self.read(key, self.kept[key].reading, observation, step)
            if not again.ok:
                return self._ended(shown, step, again), observation
            try:
                choice = self._choice(action.from_, name, policy)
            except NoCandidate as still:
                self._emit_choice(action.from_, policy, still.choice, None, step)
                return self._ended(shown, step, Gathered(ok=False, error="NoCandidate", message=str(still))), observation
        position = choice.position or 0
        self._emit_choice(action.from_, policy, choice, position, step)
        said = f"chose {json.dumps(choice.chosen, ensure_ascii=False)} by policy {name}" + (
            f" (a tie settled by {choice.tie_break})" if choice.tie_break else "")
        if not action.act:
            return self._ended(shown, step, Gathered(ok=True, message=said)), observation
        index = await self._element_of(action.from_, position)
        if index is None:
            return self._ended(shown, step, Gathered(
                ok=False, error="TargetNotFound",
                message=f"{said}, but where it is on the page is not known: click it yourself")), observation
        self._ended(shown, step, Gathered(ok=True, message=said))
        click = A.Click(index=index)
        target = observation.elements.get(index)
        acted = await self.hands.act(click, observation, step, {"name": "click", "index": index, "chosen": name},
                                     {"role": target.role, "name": target.name} if target else None)
        return Gathered(ok=acted.ok, error=acted.error, message=f"{said}; clicked [{index}]: {acted.message}"), \
            observation

    def _choice(self, source: str, name: str, policy: Policy) -> Choice:
        return choose(name, policy, self.candidates(source), self.variables)

    def candidates(self, source: str) -> list[dict[str, Any]]:
        """The list `source` names: a kept key, or key.path into it; LookupError naming what is wrong."""
        key, *path = source.split(".")
        if key not in self.kept:
            raise LookupError(f"nothing is kept under {key!r}: extract it first (kept: {', '.join(self.kept) or 'none'})")
        found = records_in(self.kept[key].data, path or None)
        if found is None:
            raise LookupError(f"{source} is not a list of records to choose from")
        return found

    def _emit_choice(self, source: str, policy: Policy, choice: Choice, position: int | None, step: int) -> None:
        self.emitter.emit(EventType.CHOSEN, Actor.NAVIGATOR, step, policy=choice.policy,
                          rules=policy.words(self.variables), chosen=choice.chosen, position=position,
                          tie_break=choice.tie_break, table=[row.model_dump(mode="json") for row in choice.table],
                          **{"from": source})

    async def _element_of(self, source: str, position: int) -> int | None:
        row = self.row(source, position)
        found = await self.operator.items(*row) if row else []
        return found[0] if found else None

    def row(self, source: str, position: int) -> tuple[str, int] | None:
        """Where record `position` of the list `source` is on the page: the rows' selector and
        its row among them; None when the list was not read from rows."""
        kept = self.kept[source.split(".")[0]]
        rows = _rows_of(kept.reading.place, source.split(".")[1:])
        if rows is None or position >= len(kept.positions):
            return None
        return rows, kept.positions[position]


def _rows_of(place: dict[str, Any] | None, path: list[str]) -> str | None:
    """The selector of the rows the records at `path` were read from."""
    node = place
    for part in path:
        node = (node or {}).get("fields", {}).get(part)
    if node is not None and "each" not in node and not path:
        inner = [sub for sub in node.get("fields", {}).values() if isinstance(sub, dict) and "each" in sub]
        node = inner[0] if len(inner) == 1 else node
    return node.get("each") if isinstance(node, dict) and isinstance(node.get("each"), str) else None

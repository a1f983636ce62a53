"""Data out of the page and choices made on it, for a run and a rerun alike: `extract` reads data
shaped by a schema (from the places a recipe recorded when there are some, else by the model)
and `choose` takes one candidate by a choice policy, clicking it through the same hands as every
other action. Each is an `ACT_START`, an `EXTRACTED` or `CHOSEN` with what was read or why that
one was taken, and an `ACT_OK` or an `ACT_FAIL` with a typed error (`ExtractionInvalid`,
`ExtractionEmpty`, `NoCandidate`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from goalbot import actions as A
from goalbot.agents.acting import Hands
from goalbot.agents.choosing import Choice, NoCandidate, Policy, PolicyError, choose, policies_of
from goalbot.agents.documents import pdf_text, read_text_places, text_places
from goalbot.agents.extractor import Extracted, Extractor, PageText
from goalbot.agents.outcome import Status, finish
from goalbot.agents.person import Person
from goalbot.agents.records import records_in
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.extraction import SchemaError, checked, problems
from goalbot.operators.base import Observation, Operator
from goalbot.operators.json_places import NetworkPlace, find_place, read_place
from goalbot.text.eventfmt import DATA_END, UNTRUSTED_DATA

SHOWN_TO_MODEL = 2_000  # characters of extracted data the navigator reads back
MOST_LOCATED = 200  # records read from JSON that are looked for on the page (a list drawn in part has fewer)


class Reading(BaseModel):
    """How data was read, so it can be read the same way again: by a rerun, or after a person put
    the page right."""

    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)

    instruction: str
    schema_: dict[str, Any] = Field(alias="schema")
    scope: int | None = None
    place: dict[str, Any] | None = None
    network: NetworkPlace | None = None


class Kept(BaseModel):
    data: Any = None
    reading: Reading
    positions: list[int] = Field(default_factory=list, description="Each record's row among the place's rows.")


class Gathered(BaseModel):
    """How an extract or a choose ended; `message` is for the model (or the rerun's failure)."""

    ok: bool
    message: str
    error: str | None = None
    errors: list[str] = Field(default_factory=list, description="Every way the data fails its schema.")
    by_model: bool = Field(False, description="The extractor was asked (a rerun counts it like a patch).")


class Gatherer:
    def __init__(self, operator: Operator, emitter: Emitter, hands: Hands, person: Person,
                 extractor: Extractor | None, schemas: dict[str, dict[str, Any]],
                 policies: dict[str, Policy], variables: dict[str, str]) -> None:
        self.operator, self.emitter, self.hands, self.person = operator, emitter, hands, person
        self.extractor = extractor
        self.schemas, self.policies, self.variables = schemas, policies, variables
        self.kept: dict[str, Kept] = {}

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
        """Reads `key` and keeps it; the EXTRACTED event says how, with no action around it. The
        ladder: the page's own JSON where a place in it was recorded, then the recorded places on
        the page, then the extractor, last."""
        if self.hands.fresh_pdf is not None:
            return await self._read_document(key, reading, observation, step, self.hands.fresh_pdf)
        schema = reading.schema_
        scope = f"[{reading.scope}] {observation.elements[reading.scope].line()}" \
            if reading.scope is not None and reading.scope in observation.elements else ""
        wrong: list[str] = []
        data: Any = None
        if reading.network is not None:
            data, wrong = read_place(reading.network, await self.operator.fetched())
            wrong = wrong or problems(data, schema)
            if not wrong:
                reading, positions = await self._drawn(data, reading)
                return self._keep(key, data, reading, observation, scope, "network", 1, positions, step)
        if reading.place is not None:
            back = await self.operator.read_places(reading.place)
            data, wrong = back.data, back.misses or problems(back.data, schema)
            if not wrong:
                return self._keep(key, back.data, reading, observation, scope, "places", 1, [], step)
        if wrong and self.extractor is None:
            rung = "places" if reading.place is not None else "network"
            self._emit_read(key, data, False, wrong, observation, scope, rung, 1, reading, step)
            return Gathered(ok=False, error="ExtractionInvalid", errors=wrong,
                            message=f"{key}: the recorded places no longer read as the schema says: "
                                    + "; ".join(wrong))
        if self.extractor is None:
            return Gathered(ok=False, error="ExtractionInvalid", message=f"{key}: no model to read the page with")
        text = await self.operator.read_text(reading.scope) or observation.render()
        page = PageText(url=observation.url, title=observation.title, text=text, scope=scope)
        extracted = await self.extractor.extract(reading.instruction, schema, page, step)
        if not extracted.valid:
            return self._unfit(key, extracted, observation, scope, step)
        data = extracted.data
        located = await self.operator.places_of(data, reading.scope)
        found = find_place(data, await self.operator.fetched())
        if found is not None and problems(found[1], schema):
            found = None  # the JSON holds it in another form (a number the page writes as a price)
        if found is not None:
            data = found[1]  # the same, or every row of a list the page draws only in part
        reread = reading.model_copy(update={"place": located.place if located else None,
                                            "network": found[0] if found is not None else None})
        kept = self._keep(key, data, reread, observation, scope, "model", extracted.sections,
                          located.positions if located else [], step)
        return kept.model_copy(update={"by_model": True})

    async def _read_document(self, key: str, reading: Reading, observation: Observation, step: int,
                             path: Path) -> Gathered:
        """The PDF the action before downloaded, by its text layer: where the recipe read it,
        else by the model, whose values are then found on the document's lines for next time."""
        text = await asyncio.to_thread(pdf_text, path)
        scope = f"the downloaded {path.name}"
        place = reading.place if reading.place and reading.place.get("document") == "pdf" else None
        if place is not None:
            data, wrong = read_text_places(place, text, reading.schema_)
            wrong = wrong or problems(data, reading.schema_)
            if not wrong:
                return self._keep(key, data, reading, observation, scope, "document", 1, [], step)
            if self.extractor is None:
                self._emit_read(key, data, False, wrong, observation, scope, "document", 1, reading, step)
                return Gathered(ok=False, error="ExtractionInvalid", errors=wrong,
                                message=f"{key}: {path.name} no longer reads as recorded: " + "; ".join(wrong))
        if self.extractor is None:
            return Gathered(ok=False, error="ExtractionInvalid", message=f"{key}: no model to read {path.name} with")
        if not text.strip():
            return Gathered(ok=False, error="ExtractionEmpty",
                            message=f"{key}: {path.name} has no text to read (a scanned document has only pictures)")
        page = PageText(url=path.name, title=path.name, text=text, scope=scope)
        extracted = await self.extractor.extract(reading.instruction, reading.schema_, page, step)
        if not extracted.valid:
            return self._unfit(key, extracted, observation, scope, step)
        reread = reading.model_copy(update={"place": text_places(extracted.data, text), "network": None})
        kept = self._keep(key, extracted.data, reread, observation, scope, "model", extracted.sections, [], step)
        return kept.model_copy(update={"by_model": True})

    def _unfit(self, key: str, extracted: Extracted, observation: Observation, scope: str, step: int) -> Gathered:
        self._emit_read(key, extracted.data, False, extracted.errors, observation, scope, "model",
                        extracted.sections, None, step)
        empty = extracted.data in (None, [], {})
        return Gathered(ok=False, error="ExtractionEmpty" if empty else "ExtractionInvalid", by_model=True,
                        errors=extracted.errors,
                        message=f"{key}: the data does not fit its schema: " + "; ".join(extracted.errors))

    async def _drawn(self, data: Any, reading: Reading) -> tuple[Reading, list[int]]:
        """Where the records read from the page's JSON are drawn on the page now (a choice clicks
        one there, a loop acts in its row), when it can be told; the recorded places else."""
        records = records_in(data)
        if records is None or len(records) > MOST_LOCATED:
            return reading, []
        located = await self.operator.places_of(data, reading.scope)
        if located is None:
            return reading, []
        return reading.model_copy(update={"place": located.place}), located.positions

    def _keep(self, key: str, data: Any, reading: Reading, observation: Observation, scope: str, read_by: str,
              sections: int, positions: list[int], step: int) -> Gathered:
        records = records_in(data)
        if read_by == "places":  # read in page order: each record is its own row
            positions = list(range(len(records))) if records is not None else []
        self.kept[key] = Kept(data=data, reading=reading, positions=positions)
        self._emit_read(key, data, True, [], observation, scope, read_by, sections, reading, step)
        shown = json.dumps(data, ensure_ascii=False)
        if len(shown) > SHOWN_TO_MODEL:
            shown = shown[:SHOWN_TO_MODEL] + " …(cut)"
        # Read off a page: data for the model, fenced like the page itself, never instructions.
        return Gathered(ok=True, message=f"kept {key}{UNTRUSTED_DATA}{shown}{DATA_END}")

    def _emit_read(self, key: str, data: Any, valid: bool, errors: list[str], observation: Observation, scope: str,
                   read_by: str, sections: int, reading: Reading | None, step: int) -> None:
        network = reading.network.model_dump(mode="json") if reading and reading.network else None
        self.emitter.emit(EventType.EXTRACTED, Actor.NAVIGATOR, step, key=key, data=data, valid=valid, errors=errors,
                          url=observation.url, scope=scope, read_by=read_by, sections=sections,
                          place=reading.place if reading else None, network=network)

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

"""Reading data shaped by a schema, down a ladder that asks the model last: the page's own JSON
where a recipe recorded the data in it, then the recorded places (on the page, in the words of its
pictures, on a downloaded PDF's lines), then the extractor, whose answer is then found in all of
these for next time. Each read is an `EXTRACTED` event that says which rung read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from goalbot.agents.acting import Hands
from goalbot.agents.documents import DocumentUnread, document_text, read_text_places, text_places
from goalbot.agents.extractor import Extracted, Extractor, PageText
from goalbot.agents.picture_places import grid_places, is_grid_place, read_grid_places
from goalbot.agents.records import records_in
from goalbot.agents.wholeness import shortfall, why_not_empty
from goalbot.events import Actor, Emitter, EventType
from goalbot.llm.extraction import problems
from goalbot.operators.base import Located, Observation, Operator
from goalbot.operators.json_places import Fetched, NetworkPlace, find_place, read_place, without_secrets
from goalbot.text.eventfmt import DATA_END, UNTRUSTED_DATA

SHOWN_TO_MODEL = 2_000  # characters of extracted data the navigator reads back
PICTURED = "Words drawn in the page's pictures (canvases, images), read by OCR:"
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
    other_places: list[dict[str, Any]] = Field(default_factory=list, description="Where it was read on the "
                                               "site's other layouts: each read in turn when `place` does not.")


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


class Reader:
    def __init__(self, operator: Operator, emitter: Emitter, hands: Hands, extractor: Extractor | None) -> None:
        self.operator, self.emitter, self.hands, self.extractor = operator, emitter, hands, extractor
        self.kept: dict[str, Kept] = {}

    async def read(self, key: str, reading: Reading, observation: Observation, step: int) -> Gathered:
        """Reads `key` and keeps it; the EXTRACTED event says how, with no action around it. The
        ladder: a PDF the action before downloaded; else the page's own JSON where a place in it
        was recorded, then the recorded places (on the page, or in its pictures' words), then the
        extractor, last."""
        if self.hands.fresh_pdf is not None:
            return await self._read_document(key, reading, observation, step, self.hands.fresh_pdf,
                                             f"the downloaded {self.hands.fresh_pdf.name}")
        try:
            shown = await self.operator.shown_pdf()
        except DocumentUnread as why:
            return self._unread(key, str(why), observation, "the PDF the tab shows", reading, step)
        if shown is not None:  # a PDF served inline, or opened in a new tab: the viewer's page has no text
            return await self._read_document(key, reading, observation, step, shown, f"the {shown.name} the tab shows")
        schema = reading.schema_
        scope = f"[{reading.scope}] {observation.elements[reading.scope].line()}" \
            if reading.scope is not None and reading.scope in observation.elements else ""
        wrong: list[str] = []
        data: Any = None
        if reading.network is not None:
            data, wrong = read_place(reading.network, await self._fetched())
            wrong = wrong or problems(data, schema)
            if not wrong:
                reading, positions = await self._drawn(data, reading)
                return self._keep(key, data, reading, observation, scope, "network", 1, positions, step)
        if reading.place is not None:
            rung, data, wrong = await self._read_places(reading)
            if not wrong:
                return self._keep(key, data, reading, observation, scope, rung, 1, [], step)
            for other in reading.other_places:  # the page in another of the site's layouts (an A/B test)
                elsewhere = reading.model_copy(update={"place": other})
                rung, read_there, wrong_there = await self._read_places(elsewhere)
                if not wrong_there:
                    return self._keep(key, read_there, elsewhere, observation, scope, rung, 1, [], step)
        if wrong and self.extractor is None:
            rung = "network" if reading.place is None else "ocr" if _drawn_in_pictures(reading) else "places"
            self._emit_read(key, data, False, wrong, observation, scope, rung, 1, reading, step)
            return Gathered(ok=False, error="ExtractionInvalid", errors=wrong,
                            message=f"{key}: the recorded places no longer read as the schema says: "
                                    + "; ".join(wrong))
        if self.extractor is None:
            return Gathered(ok=False, error="ExtractionInvalid", message=f"{key}: no model to read the page with")
        text = await self.operator.read_text(reading.scope) or observation.render()
        pictured = await self.operator.pictures_text(reading.scope)
        if pictured:  # words drawn in pixels: the model reads them as text, not as a picture
            text += f"\n\n{PICTURED}\n{pictured}"
        page = PageText(url=observation.url, title=observation.title, text=text, scope=scope,
                        picture=observation.screenshot if pictured else None)
        extracted = await self.extractor.extract(reading.instruction, schema, page, step)
        if not extracted.valid:
            return self._unfit(key, extracted, observation, scope, step)
        data = extracted.data
        if records_in(data) == [] and (shows := await why_not_empty(self.operator, schema, reading.scope, pictured)):
            return self._short(key, data, f"the answer holds no records, and {shows}", "ExtractionEmpty",
                               observation, scope, extracted.sections, step)
        located = await self.operator.places_of(data, reading.scope)
        if located is not None:
            data, short = await self._whole(data, located, schema)
            if short:
                return self._short(key, data, short, "ExtractionShort", observation, scope, extracted.sections, step)
        found = find_place(data, await self._fetched())
        if found is not None and problems(found[1], schema):
            found = None  # the JSON holds it in another form (a number the page writes as a price)
        if found is not None:
            data = found[1]  # the same data, typed as the page's JSON has it
        place = located.place if located else \
            (grid_places(data, pictured) or text_places(data, pictured, "ocr")) if pictured else None
        reread = reading.model_copy(update={"place": place, "network": found[0] if found is not None else None})
        kept = self._keep(key, data, reread, observation, scope, "model", extracted.sections,
                          located.positions if located else [], step)
        return kept.model_copy(update={"by_model": True})

    async def _fetched(self) -> list[Fetched]:
        # A page may echo a secret the person handed in: no rung reads it back from there.
        return without_secrets(await self.operator.fetched(), self.hands.secrets.scrub)

    async def _read_places(self, reading: Reading) -> tuple[str, Any, list[str]]:
        """The recorded places read now: on the page, or in the words its pictures show; the rung,
        the data and what did not read."""
        assert reading.place is not None
        if _drawn_in_pictures(reading):
            read = read_grid_places if is_grid_place(reading.place) else read_text_places  # a table's, a chart's
            data, wrong = read(reading.place, await self.operator.pictures_text(reading.scope), reading.schema_)
            return "ocr", data, wrong or problems(data, reading.schema_)
        back = await self.operator.read_places(reading.place)
        return "places", back.data, back.misses or problems(back.data, reading.schema_)

    async def _read_document(self, key: str, reading: Reading, observation: Observation, step: int,
                             path: Path, scope: str) -> Gathered:
        """The PDF the action before downloaded, or the tab shows, by its text layer: where the
        recipe read it, else by the model, whose values are then found on the document's lines
        for next time."""
        try:
            text = await document_text(path)
        except DocumentUnread as why:
            return self._unread(key, f"{path.name}: {why}", observation, scope, reading, step)
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
                            message=f"{key}: {path.name} has no text to read, and OCR found none in its pages")
        page = PageText(url=path.name, title=path.name, text=text, scope=scope)
        extracted = await self.extractor.extract(reading.instruction, reading.schema_, page, step)
        if not extracted.valid:
            return self._unfit(key, extracted, observation, scope, step)
        reread = reading.model_copy(update={"place": text_places(extracted.data, text), "network": None})
        kept = self._keep(key, extracted.data, reread, observation, scope, "model", extracted.sections, [], step)
        return kept.model_copy(update={"by_model": True})

    def _unread(self, key: str, why: str, observation: Observation, scope: str, reading: Reading,
                step: int) -> Gathered:
        self._emit_read(key, None, False, [why], observation, scope, "document", 0, reading, step)
        return Gathered(ok=False, error="DocumentUnread", errors=[why], message=f"{key}: not read: {why}")

    def _unfit(self, key: str, extracted: Extracted, observation: Observation, scope: str, step: int) -> Gathered:
        self._emit_read(key, extracted.data, False, extracted.errors, observation, scope, "model",
                        extracted.sections, None, step)
        empty = extracted.data in (None, [], {})
        return Gathered(ok=False, error="ExtractionEmpty" if empty else "ExtractionInvalid", by_model=True,
                        errors=extracted.errors,
                        message=f"{key}: the data does not fit its schema: " + "; ".join(extracted.errors))

    async def _whole(self, data: Any, located: Located, schema: dict[str, Any]) -> tuple[Any, str]:
        """`data` with every row of a list the page draws only in part (read from its places by
        scrolling its box through), when the rows the model saw are the first of them; and how
        it falls short of the list the page says it holds, when it does."""
        back = await self.operator.read_places(located.place)
        seen, whole = records_in(data), records_in(back.data)
        if seen is None or whole is None or back.misses or problems(back.data, schema):
            return data, shortfall(data, located, back, complete=False)
        # Only a list drawn in part: "the first two" of a table drawn whole stays two.
        if back.scrolled and len(whole) > len(seen) and whole[:len(seen)] == seen:
            return back.data, shortfall(back.data, located, back, complete=True)
        return data, shortfall(data, located, back, complete=len(whole) <= len(seen))

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

    def _short(self, key: str, data: Any, why: str, error: str, observation: Observation, scope: str,
               sections: int, step: int) -> Gathered:
        self._emit_read(key, data, False, [why], observation, scope, "model", sections, None, step)
        return Gathered(ok=False, error=error, errors=[why], by_model=True, message=f"{key}: {why}")

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


def _drawn_in_pictures(reading: Reading) -> bool:
    return (reading.place or {}).get("document") == "ocr"

"""Finding a recipe's element on the page as it is now, cheapest rung first, with no model.

1. cached — the CSS path recorded, when it matches exactly one listed element of the same role;
2. strict — one unique match of the test id, the id, role + name, the label or the placeholder;
3. memory — the evidence an earlier rerun healed this action with, tried the same strict way;
4. refind — every listed element scored against the evidence (role, name, place, kind); the best
   is taken only when it is above `ACCEPT` and ahead of the next by `MARGIN`: a wrong click is
   worse than a question.

A text that holds one of the rerun's values (`--var PRODUCT="Walnut Shelf"`) is matched exactly on
every rung: "Walnut Shelf Bracket" is as alike to it as a renamed button is to its old name, and
picking it would put the wrong thing in the cart with every step reported done.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from pydantic import BaseModel

from goalbot.operators.base import Element, Observation, Operator
from goalbot.payloads import Rung
from goalbot.recipes.model import Evidence

ACCEPT = 0.62
MARGIN = 0.12
# Roles a person would not tell apart: a button drawn as a link is still the same control.
ALIKE = [{"button", "link", "clickable", "menuitem", "tab"}, {"textbox", "searchbox", "combobox"},
         {"checkbox", "switch", "menuitemcheckbox"}]


class Found(BaseModel):
    index: int
    rung: Rung
    score: float = 1.0


def plain(text: str) -> str:
    """Text as names are compared: lower case, its runs of white space one space."""
    return " ".join(text.lower().split())


def _same(a: str, b: str) -> bool:
    return plain(a) == plain(b)


def named_exactly(element: Element, exact: list[str]) -> bool:
    """The element is named, as a whole, by one of the texts of `exact` (those holding a value)."""
    return not exact or any(_same(element.name, text) or _same(element.placeholder or "", text) for text in exact)


def _unique(elements: list[Element]) -> int | None:
    return elements[0].index if len(elements) == 1 else None


async def strictly(evidence: Evidence, observation: Observation, operator: Operator) -> int | None:
    listed = list(observation.elements.values())
    for selector in filter(None, [
        f'[data-testid="{evidence.test_id}"]' if evidence.test_id else "",
        f'[id="{evidence.id}"]' if evidence.id else "",
    ]):
        found = await operator.find(selector)
        if found is not None and found in observation.elements and _role_fits(observation.elements[found], evidence):
            return found
    for wanted in (evidence.name, evidence.label, evidence.placeholder):
        if not wanted:
            continue
        hit = _unique([e for e in listed if _role_fits(e, evidence) and
                       (_same(e.name, wanted) or _same(e.placeholder or "", wanted))])
        if hit is not None:
            return hit
    return None


def present(evidence: Evidence, observation: Observation) -> bool:
    """An element of the evidence's role and name is on the page, once or many times (every
    card's "Download"): what a way's condition asks, which needs no one element to act on."""
    wanted = [text for text in (evidence.name, evidence.label, evidence.placeholder) if text]
    return bool(wanted) and any(_role_fits(e, evidence) and any(_same(e.name, text) or _same(e.placeholder or "", text)
                                                                for text in wanted)
                                for e in observation.elements.values())


def _role_fits(element: Element, evidence: Evidence) -> bool:
    if not evidence.role or element.role == evidence.role:
        return True
    return any(element.role in group and evidence.role in group for group in ALIKE)


def similarity(a: str, b: str) -> float:
    a, b = plain(a), plain(b)
    if not a or not b:
        return 0.0
    ratio = SequenceMatcher(None, a, b).ratio()
    words_a, words_b = set(a.split()), set(b.split())
    # "Save" inside "Save changes": the old words are all still there.
    if words_a <= words_b or words_b <= words_a:
        ratio = max(ratio, 0.8)
    return ratio


def score(element: Element, evidence: Evidence) -> float:
    role = 1.0 if element.role == evidence.role else 0.7 if _role_fits(element, evidence) else 0.0
    name = max(similarity(element.name, evidence.name), similarity(element.name, evidence.label),
               similarity(element.placeholder or "", evidence.placeholder))
    place = 0.0
    if element.box and evidence.box:
        dx = (element.box[0] + element.box[2] / 2) - (evidence.box[0] + evidence.box[2] / 2)
        dy = (element.box[1] + element.box[3] / 2) - (evidence.box[1] + evidence.box[3] / 2)
        place = max(0.0, 1.0 - (dx * dx + dy * dy) ** 0.5 / 600)
    return 0.35 * role + 0.5 * name + 0.15 * place


def refind(evidence: Evidence, observation: Observation, exact: list[str] | None = None) -> Found | None:
    ranked = sorted(((score(e, evidence), e.index) for e in observation.elements.values()
                     if named_exactly(e, exact or [])), reverse=True)
    if not ranked or ranked[0][0] < ACCEPT:
        return None
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < MARGIN:
        return None
    return Found(index=ranked[0][1], rung=Rung.REFIND, score=round(ranked[0][0], 3))


def anything_alike(evidence: Evidence, observation: Observation) -> bool:
    """Some element on the page could be the one `evidence` names, surely or not."""
    return any(score(element, evidence) >= ACCEPT for element in observation.elements.values())


async def locate(evidence: Evidence, observation: Observation, operator: Operator,
                 healed: Evidence | None = None, exact: list[str] | None = None) -> Found | None:
    """The element of `observation` that `evidence` names, by the cheapest rung that is sure.
    `exact`: the evidence's texts that hold a value; the element must be named by each as it is."""
    exact = exact or []

    def fits(index: int | None) -> bool:
        return index is not None and index in observation.elements \
            and named_exactly(observation.elements[index], exact)

    if evidence.css:
        found = await operator.find(evidence.css)
        element = observation.elements.get(found) if found is not None else None
        if element is not None and _role_fits(element, evidence) and fits(element.index) \
                and (similarity(element.name, evidence.name) >= ACCEPT or not evidence.name):
            return Found(index=element.index, rung=Rung.CACHED)
    index = await strictly(evidence, observation, operator)
    if index is not None and fits(index):
        return Found(index=index, rung=Rung.STRICT)
    if healed is not None:
        index = await strictly(healed, observation, operator)
        if index is not None and fits(index):
            return Found(index=index, rung=Rung.MEMORY)
    return refind(evidence, observation, exact)

"""Which actions need the person's GO, decided here in code and never left to the prompt.

Paying or buying, deleting, sending or posting, uploading a file, leaving the allowed domains and
typing a secret into a site it was not meant for. The words are matched on what the person would
see: the label of the element about to be clicked, or of the button a form would submit.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel

from goalbot import actions as A
from goalbot.actions import Action, submits_form
from goalbot.agents.domains import Domains, host_of
from goalbot.operators.base import SECRET_WORDS, Element, Observation


class RiskKind(StrEnum):
    PAYMENT = "payment"
    DELETE = "delete"
    SEND = "send"
    UPLOAD = "upload"
    LEAVE_DOMAIN = "leave_domain"
    SECRET_ON_NEW_SITE = "secret_on_new_site"
    SECRET_FIELD = "secret_field"


class Risk(BaseModel):
    kind: RiskKind
    what: str
    where: str

    @property
    def widens_domains(self) -> bool:
        """A GO to these opens a door `--allow-risky` must not open on its own."""
        return self.kind in (RiskKind.LEAVE_DOMAIN, RiskKind.SECRET_ON_NEW_SITE)


_WORDS: list[tuple[RiskKind, re.Pattern[str]]] = [
    (RiskKind.PAYMENT, re.compile(
        r"\b(buy|purchase|pay|payment|checkout|check out|place (an |the |my )?order|order now|"
        r"confirm (the )?(order|purchase|payment)|subscribe|donate)\b|구매|결제|주문하기|주문 확정", re.I)),
    (RiskKind.DELETE, re.compile(
        r"\b(delete|remove|erase|destroy|discard|wipe|close (my |the )?account)\b|삭제|제거|탈퇴", re.I)),
    (RiskKind.SEND, re.compile(
        r"\b(send|post|publish|tweet|reply|comment|share|transfer)\b|전송|보내기|게시|등록|댓글", re.I)),
]
_POINTED = (A.Click, A.DoubleClick)


def words_risk(label: str) -> RiskKind | None:
    for kind, pattern in _WORDS:
        if pattern.search(label):
            return kind
    return None


def element_at(observation: Observation, x: float, y: float) -> Element | None:
    """The smallest listed element whose box holds the point: what a click there would hit."""
    hits = [e for e in observation.elements.values()
            if e.box and e.box[0] <= x <= e.box[0] + e.box[2] and e.box[1] <= y <= e.box[1] + e.box[3]]
    return min(hits, key=lambda e: e.box[2] * e.box[3] if e.box else 0.0, default=None)


def target_of(action: Action, observation: Observation) -> Element | None:
    index = getattr(action, "index", None)
    if index is not None:
        return observation.elements.get(index)
    x, y = getattr(action, "x", None), getattr(action, "y", None)
    if x is not None and y is not None:
        return element_at(observation, x, y)
    return None


def _label(element: Element) -> str:
    return " ".join(filter(None, [element.name, element.value if element.input_type in ("submit", "button") else None]))


def assess(
    action: Action, observation: Observation, domains: Domains, label: str = ""
) -> Risk | None:
    """The risk of `action` on the page `observation` shows. `label` is what a person would read
    where the action lands when no listed element says it (`Operator.label_at`): the buttons of
    the form it submits, or the words on the screen around it."""
    where = observation.url
    if isinstance(action, A.Navigate):
        if not domains.allows(action.url):
            return Risk(kind=RiskKind.LEAVE_DOMAIN, where=action.url,
                        what=f"go to {host_of(action.url) or action.url}, outside the allowed "
                             f"domains ({domains.describe()})")
        return None
    if isinstance(action, A.Type) and "<secret:" in action.text and not domains.allows_secrets(where):
        return Risk(kind=RiskKind.SECRET_ON_NEW_SITE, where=where,
                    what=f"type a secret on {host_of(where) or where}, a site it was not given for")
    if isinstance(action, A.UploadFile):
        return Risk(kind=RiskKind.UPLOAD, where=where, what=f"upload {action.path}")
    if isinstance(action, _POINTED):
        element = target_of(action, observation)
        if element is not None:
            kind = words_risk(_label(element))
            if kind is not None:
                return Risk(kind=kind, where=where, what=f"{action.name} {element.role} {element.name!r}")
        elif label and (kind := words_risk(label)) is not None:
            return Risk(kind=kind, where=where, what=f"{action.name} on {label!r}")
        return None
    if isinstance(action, A.Type) and not submits_form(action) and SECRET_WORDS.search(label):
        return Risk(kind=RiskKind.SECRET_FIELD, where=where, what=f"type into the password field by {label!r}")
    if label and submits_form(action) and (kind := words_risk(label)) is not None:
        return Risk(kind=kind, where=where, what=f"submit the form of {label!r}")
    return None

"""Which actions need the person's GO, decided here in code and never left to the prompt.

Paying or buying, deleting, sending or posting, uploading a file, leaving the allowed domains and
typing a secret into a site it was not meant for. The words are matched on what the action would
activate, found by the operator the way it will really happen (`Operator.landing`): the element
under the pointer, the focused element for keys, the submit buttons and address of the form a key
press submits, the address a navigation loads and what on the page aims at it.
"""

from __future__ import annotations

import re
from enum import StrEnum
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel

from goalbot import actions as A
from goalbot.actions import Action
from goalbot.agents.domains import Domains, host_of
from goalbot.operators.base import SECRET_WORDS, Element, Landing, Observation


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
        r"\b(delete|remove|erase|destroy|discard|wipe|trash|close (my |the )?account)\b|삭제|제거|탈퇴", re.I)),
    (RiskKind.SEND, re.compile(
        r"\b(send|post|publish|tweet|reply|comment|share|transfer)\b|전송|보내기|게시|등록|댓글", re.I)),
]
# Listed elements a person types into: clicking one only puts the cursor there.
_FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "slider"})
# Words in an address that mean the page itself does it: opening /api/buy buys, /post/12 reads.
_URL_KINDS = (RiskKind.PAYMENT, RiskKind.DELETE)


def words_risk(label: str) -> RiskKind | None:
    for kind, pattern in _WORDS:
        if pattern.search(label):
            return kind
    return None


def js_patterns() -> list[tuple[str, str]]:
    """The same words for the page's own gate (`gate.js`): JavaScript regex sources and flags."""
    return [(pattern.pattern, "i") for _kind, pattern in _WORDS]


def url_risk(url: str) -> RiskKind | None:
    """An address whose path or query says it pays or deletes (`/checkout`, `/api/buy?qty=1`)."""
    parts = urlsplit(url)
    words = re.sub(r"[^A-Za-z0-9가-힣]+", " ", unquote(f"{parts.path} {parts.query}"))
    kind = words_risk(words)
    return kind if kind in _URL_KINDS else None


def element_at(observation: Observation, x: float, y: float) -> Element | None:
    """The smallest listed element whose box holds the point: what a click there would hit."""
    hits = [e for e in observation.elements.values()
            if e.box and e.box[0] <= x <= e.box[0] + e.box[2] and e.box[1] <= y <= e.box[1] + e.box[3]]
    return min(hits, key=lambda e: e.box[2] * e.box[3] if e.box else 0.0, default=None)


def _listed(observation: Observation, index: int | None, x: float | None, y: float | None) -> Element | None:
    if index is not None:
        return observation.elements.get(index)
    if x is not None and y is not None:
        return element_at(observation, x, y)
    return None


def target_of(action: Action, observation: Observation) -> Element | None:
    return _listed(observation, getattr(action, "index", None), getattr(action, "x", None),
                   getattr(action, "y", None))


def _listed_words(action: Action, observation: Observation) -> str:
    """What the observation said of the pressed elements; fields activate nothing when pressed."""
    if not A.presses_pointer(action):
        return ""
    ends = [target_of(action, observation)]
    if isinstance(action, A.Drag):
        ends.append(_listed(observation, action.to_index, action.to_x, action.to_y))
    words = []
    for element in ends:
        if element is None or element.role in _FIELD_ROLES:
            continue
        words.append(" ".join(filter(None, [
            element.name, element.value if element.input_type in ("submit", "button") else None])))
    return " ".join(words)


def _described(action: Action, landing: Landing) -> str:
    if isinstance(action, A.Navigate):
        return f"open {action.url}" + (f" ({landing.words})" if landing.words else "")
    what = landing.words or landing.url
    if A.presses_pointer(action):
        return f"{action.name} on {what!r}"
    return f"{action.name}: submits {what!r}"


def assess(action: Action, observation: Observation, domains: Domains, landing: Landing | None = None) -> Risk | None:
    """The risk of `action` on the page `observation` shows. `landing` is what the action would
    activate, as the operator found it right before (`Operator.landing`)."""
    landing = landing or Landing()
    where = observation.url
    if isinstance(action, A.Navigate) and not domains.allows(action.url):
        return Risk(kind=RiskKind.LEAVE_DOMAIN, where=action.url,
                    what=f"go to {host_of(action.url) or action.url}, outside the allowed "
                         f"domains ({domains.describe()})")
    if isinstance(action, A.Type) and "<secret:" in action.text and not domains.allows_secrets(where):
        return Risk(kind=RiskKind.SECRET_ON_NEW_SITE, where=where,
                    what=f"type a secret on {host_of(where) or where}, a site it was not given for")
    if isinstance(action, A.UploadFile):
        return Risk(kind=RiskKind.UPLOAD, where=where, what=f"upload {action.path}")
    if not A.activates(action):
        if isinstance(action, A.Type) and SECRET_WORDS.search(landing.words):
            return Risk(kind=RiskKind.SECRET_FIELD, where=where,
                        what=f"type into the password field by {landing.words!r}")
        return None
    kind = words_risk(f"{landing.words} {_listed_words(action, observation)}")
    urls = landing.url.split() + ([action.url] if isinstance(action, A.Navigate) else [])
    for url in urls:
        kind = kind or url_risk(url)
    if kind is None:
        return None
    return Risk(kind=kind, where=where, what=_described(action, landing))

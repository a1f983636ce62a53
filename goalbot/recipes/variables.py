"""A recipe's {{variables}}. A value given with `--var` when recording reaches other places in
other forms: the link named by it, the next page's address as a slug, an announcement, a search
address URL-encoded. Recording writes each form it finds as a placeholder of its own
(`{{PRODUCT|slug}}`); a rerun fills each in with the new value in the same form.

Where goalbot cannot tell how the page carried a value — an address that changed after an action
that used one, with no form of it in sight (a product id, say) — a rerun with another value must
not expect the old address: only the part that cannot depend on it is kept (`loosen`)."""

from __future__ import annotations

import re
from typing import Callable, TypeVar
from urllib.parse import quote, quote_plus

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def slug(value: str) -> str:
    return re.sub(r"[\W_]+", "-", value.lower()).strip("-")


FORMS: dict[str, Callable[[str], str]] = {
    "": lambda value: value,
    "lower": str.lower,
    "upper": str.upper,
    "slug": slug,
    "url": lambda value: quote(value, safe=""),
    "form": quote_plus,  # a GET form's address: a space is +
}
VARIABLE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)(?:\|(" + "|".join(f for f in FORMS if f) + r"))?\}\}")
SHORTEST_FORMED = 3  # a value shorter than this is taken only as typed: "ab" is in too many words


def _placeholders(variables: dict[str, str]) -> dict[str, str]:
    """Each form of each value → its placeholder; the value as typed wins a form that equals it."""
    found: dict[str, str] = {}
    for name, value in variables.items():
        if not value:
            continue
        for form, render in FORMS.items():
            shown = render(value)
            if shown and shown not in found and (not form or len(value) >= SHORTEST_FORMED):
                found[shown] = f"{{{{{name}|{form}}}}}" if form else f"{{{{{name}}}}}"
    return found


def template(text: str, variables: dict[str, str]) -> str:
    """`text` with every form of every value replaced by its placeholder, in one pass (so a
    placeholder is never replaced into again), the longest match first. A value is a whole word
    or number where it stands: 55 is in "$55" and "55 seats", never in the port of ":42155"."""
    found = _placeholders(variables)
    if not found or not text:
        return text
    pattern = re.compile("|".join(_whole(shown) for shown in sorted(found, key=len, reverse=True)))
    return pattern.sub(lambda match: found[match.group(0)], text)


# Korean writes a particle or an honorific onto the word it follows: "민지님의", "서울에서".
PARTICLES = "님|씨|께|의|을|를|은|는|이|가|에|와|과|도|만|로|으로|나|랑|한테|까지|부터"


def _whole(shown: str) -> str:
    before = r"(?<![^\W_])" if shown[0].isalnum() else ""
    after = r"(?![^\W_])" if shown[-1].isalnum() else ""
    if after and _hangul(shown[-1]):
        after = rf"(?:(?={PARTICLES})|{after})"
    return before + re.escape(shown) + after


def _hangul(character: str) -> bool:
    return "\uac00" <= character <= "\ud7a3"


def fill(text: str, values: dict[str, str]) -> str:
    """`text` with each placeholder replaced by its value, in the placeholder's form; one with no
    value is left as it is."""
    def filled(match: re.Match[str]) -> str:
        name, form = match.group(1), match.group(2) or ""
        return FORMS[form](values[name]) if name in values else match.group(0)

    return VARIABLE.sub(filled, text)


def record_values(record: dict[str, object]) -> dict[str, str]:
    """A loop's record as the {{each_FIELD}} values of its pass: its plain fields, as text."""
    from goalbot.recipes.model import LOOP_FIELD

    return {f"each_{key}": str(value) for key, value in record.items()
            if LOOP_FIELD.fullmatch(key) and isinstance(value, (str, int, float)) and not isinstance(value, bool)}


def names_in(text: str) -> set[str]:
    return {match.group(1) for match in VARIABLE.finditer(text)}


def loosen(path: str) -> str:
    """The part of an address path that an unseen form of a value cannot be in: its folder
    (`/product/` of `/product/bk-1`)."""
    trimmed = path.rstrip("/")
    return trimmed.rsplit("/", 1)[0] + "/" if "/" in trimmed.strip("/") else "/"


def each_text(model: M, change: Callable[[str], str]) -> M:
    """A copy of `model` with `change` applied to each of its text fields (an element's evidence)."""
    return model.model_copy(update={key: change(value) for key, value in model if isinstance(value, str)})

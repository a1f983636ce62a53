"""Which authoring profile a run's authoring roles (planner, patcher) take their prompts from: the
one `--authoring-profile` names, else the pinned one, else goalbot's own prompt files."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from goalbot.llm.authored import AuthoredPrompts
from storage import profiles

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils

_VERSION = re.compile(r"(?:authoring-profile/)?v?(\d{1,9})")  # more digits than that name no profile
OWN_PROMPTS = ("none", "builtin")


class ProfileChoiceError(ValueError):
    """The profile asked for cannot be used; the message says why, for the person."""


def parse_version(text: str) -> int:
    """`v3`, `3` or `authoring-profile/v3`."""
    found = _VERSION.fullmatch(text.strip())
    if not found:
        raise ProfileChoiceError(f"bad authoring profile {text!r}: name it vN (goalbot profile list)")
    return int(found.group(1))


def authored_prompts(db: sqlite_utils.Database, wanted: str | None) -> AuthoredPrompts | None:
    """Raises ProfileChoiceError."""
    if wanted is not None and wanted.strip().lower() in OWN_PROMPTS:
        return None
    version = parse_version(wanted) if wanted is not None else profiles.pinned(db)
    if version is None:
        return None
    try:
        profile = profiles.load(db, version)
    except profiles.UnreadableProfile as exc:
        raise ProfileChoiceError(str(exc)) from exc
    if profile is None:
        raise ProfileChoiceError(f"there is no authoring-profile/v{version} in this store (goalbot profile list)")
    return profile.prompts()

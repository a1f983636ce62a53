"""Authoring profiles in the store: every one `goalbot tune` wrote, and the one runs use (pinned)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from goalbot.llm.profiles import AuthoringProfile

if TYPE_CHECKING:  # sqlite_utils loads when a store is opened
    import sqlite_utils


class UnreadableProfile(ValueError):
    """A stored profile that no longer reads (kept by an older goalbot, or damaged)."""


def _now() -> str:
    return datetime.now().astimezone().isoformat()


def save(db: sqlite_utils.Database, profile: AuthoringProfile) -> AuthoringProfile:
    """Keeps `profile` as the next version; returns it with that version."""
    with db.conn:
        latest = db.execute("select max(version) from authoring_profiles").fetchone()[0] or 0
        kept = profile.model_copy(update={"version": int(latest) + 1, "created_at": _now()})
        db.execute("insert into authoring_profiles (version, created_at, data) values (?, ?, ?)",
                   [kept.version, kept.created_at, kept.model_dump_json()])
    return kept


def load(db: sqlite_utils.Database, version: int) -> AuthoringProfile | None:
    """Raises UnreadableProfile for a damaged one."""
    row = db.execute("select data from authoring_profiles where version = ?", [version]).fetchone()
    if row is None:
        return None
    try:
        return AuthoringProfile.model_validate_json(row[0])
    except ValidationError as exc:
        raise UnreadableProfile(f"authoring-profile/v{version} cannot be read: {exc.errors()[0]['msg']}") from exc


def versions(db: sqlite_utils.Database) -> list[int]:
    return [int(row[0]) for row in db.execute("select version from authoring_profiles order by version")]


def pin(db: sqlite_utils.Database, version: int | None, forced: bool = False) -> None:
    """Runs use `version` from now on (None: goalbot's own prompts)."""
    with db.conn:
        db.execute("insert or replace into authoring_pin (id, version, pinned_at, forced) values (1, ?, ?, ?)",
                   [version, _now(), int(forced)])


def pinned(db: sqlite_utils.Database) -> int | None:
    row = db.execute("select version from authoring_pin where id = 1").fetchone()
    return int(row[0]) if row and row[0] is not None else None

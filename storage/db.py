"""Opening the SQLite file: where it lives, WAL mode, the schema and its versions.

The schema's version is `PRAGMA user_version`. Creating or migrating it is one exclusive
transaction, so any number of processes may open a fresh file at once; one of them builds it and
the others find it built. A store that is opened for writing is written to before anything else
happens, so a file that cannot be written says so at once, not after a run.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import time
from pathlib import Path
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

from goalbot.defaults import data_home
from storage.schema import MIGRATIONS, REQUIRED_COLUMNS

if TYPE_CHECKING:  # sqlite_utils brings numpy and pluggy: loaded when a store is opened, not before
    import sqlite_utils

BUSY_TIMEOUT_MS = 5_000
OPEN_PATIENCE_S = 30.0  # how long opening waits for other processes holding the write lock
T = TypeVar("T")
# The stores this process proved writable, by file and mode: one proof each. A batch's slot opens
# its store four times a job, and each proof (a write, then a checkpoint on close) was four fifths
# of the opening's time; a store made read-only since (another mode) or another file is proved again.
_proven: set[tuple[int, int, int]] = set()


class StoreError(Exception):
    """The store cannot be used; the message says which file and why."""


def default_path() -> Path:
    """The store when neither `--db` nor GOALBOT_DB (read with the other settings) names one."""
    return data_home() / "goalbot.db"


def _locked(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _patiently(work: Callable[[], T]) -> T:
    """Runs `work`, again while another process holds the lock (WAL switch, schema creation)."""
    deadline = time.monotonic() + OPEN_PATIENCE_S
    delay = 0.02
    while True:
        try:
            return work()
        except sqlite3.Error as exc:
            if not _locked(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def connect(path: Path, create: bool = True) -> sqlite_utils.Database:
    """The store at `path`. `create` makes (or migrates) it and proves it can be written; without
    it, the file must already be a goalbot store, which is then only read."""
    if not create and not path.exists():
        raise StoreError(f"no goalbot store at {path} (nothing has run yet, or pass --db)")
    conn: sqlite3.Connection | None = None
    try:
        if create:
            _make_folder(path)
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if create:
            _patiently(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(f"the store {path} was made by a newer goalbot (schema {version}; this one "
                                 f"knows {len(MIGRATIONS)}): upgrade goalbot, or pass another --db")
            if version < len(MIGRATIONS):
                _patiently(lambda: _migrate(conn))
            else:
                _prove_writable_once(conn, path)
        _check(conn, path)
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            conn.close()
        raise StoreError(f"cannot open the store {path}: {_plain(exc)}") from exc
    except StoreError:
        if conn is not None:
            conn.close()
        raise
    return _sqlite_utils().Database(conn)


def _make_folder(path: Path) -> None:
    """The default store's folder is made on first use; any other must be there already. A mistyped
    `--db` that made its folders would start a new empty store, and the runs kept there would
    seem lost."""
    if path.parent.is_dir():
        return
    if path.expanduser().absolute() == default_path().expanduser().absolute():
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.parent.exists():
        raise StoreError(f"cannot open the store {path}: the folder {path.parent} does not exist "
                         "(a mistyped --db? create the folder first)")


def _sqlite_utils() -> ModuleType:
    """sqlite_utils, loaded without numpy when nothing loaded numpy before. It tries numpy only to
    accept numpy values in rows, which goalbot never writes, and that try is a fifth of a second
    of every process that opens a store (a batch's slot, `goalbot run`) before its first page."""
    if "sqlite_utils" in sys.modules or "numpy" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["numpy"] = None  # type: ignore[assignment]  # `import numpy` raises ImportError
    try:
        import sqlite_utils
    finally:
        del sys.modules["numpy"]
    return sqlite_utils


@contextmanager
def opened(path: Path, create: bool = True) -> Iterator[sqlite_utils.Database]:
    """`connect`, closed again however the block ends."""
    db = connect(path, create=create)
    try:
        yield db
    finally:
        db.close()


def kept_open(path: Path) -> sqlite3.Connection | None:
    """A connection to the store at `path` that stays open and does nothing, for a process that
    opens the store again and again (a batch's slot: four times a job). SQLite checkpoints the WAL
    into the file and deletes it whenever a store's last connection closes, and that was most of an
    opening's cost; while this one is open no other close is the last, and the WAL is checkpointed
    as it fills, as usual. None when there is no store there or it cannot be opened."""
    if not path.is_file():  # connecting would make an empty file where no store is
        return None
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        conn.execute("PRAGMA schema_version").fetchone()  # a read: from now on a reader of the WAL
    except sqlite3.Error:
        conn.close()
        return None
    return conn


def _plain(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if "readonly" in text or "read-only" in text:
        return f"{text} (the file or its folder cannot be written)"
    if "not a database" in text or "malformed" in text:
        return f"{text} (it is damaged, or not a goalbot store)"
    return text


def _prove_writable_once(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = path.stat()
    except OSError:  # unknown: proved every time
        _prove_writable(conn)
        return
    key = (found.st_dev, found.st_ino, found.st_mode)
    if key not in _proven:
        _prove_writable(conn)
        _proven.add(key)


def _prove_writable(conn: sqlite3.Connection) -> None:
    """One real write (the schema version, rewritten as it is): a read-only or immutable file, a
    read-only mount or a full disk fails here, before a run starts. A file another process is
    writing right now is writable: the recorder waits for its turn."""
    conn.execute("PRAGMA busy_timeout = 1000")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if not _locked(exc):
            raise
        return
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _migrate(conn: sqlite3.Connection) -> None:
    """Brings the schema to the newest version in one exclusive transaction (another process may
    have done it meanwhile: the version is read again inside it)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for migration in MIGRATIONS[version:]:
            migration(conn)
        if version < len(MIGRATIONS):
            conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _check(conn: sqlite3.Connection, path: Path) -> None:
    """A file that is not a goalbot store (another program's database, a dropped table) is named
    as such, rather than failing later in the middle of a query."""
    for table, needed in REQUIRED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        missing = sorted(needed - have)
        if not have:
            raise StoreError(f"{path} is not a goalbot store (it has no table {table})")
        if missing:
            raise StoreError(f"{path} is not a goalbot store (table {table} lacks {', '.join(missing)})")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cut_off(row: dict[str, object]) -> bool:
    """A session still marked running whose process on this host is gone."""
    pid = row.get("pid")
    return (row.get("status") == "running" and row.get("host") == socket.gethostname()
            and isinstance(pid, int) and pid > 0 and not _alive(pid))


def mark_interrupted(db: sqlite_utils.Database) -> list[str]:
    """Sessions still 'running' whose process on this host is gone were cut off: say so. A store
    that can only be read keeps its rows; readers show them as interrupted all the same."""
    cut = [row["id"] for row in db.query("select id, status, pid, host from sessions where status = 'running'")
           if cut_off(row)]
    try:
        with db.conn:
            for session_id in cut:
                db.execute("update sessions set status = 'interrupted', finish_reason = ? "
                           "where id = ? and status = 'running'", ["the process ended mid-run", session_id])
    except sqlite3.OperationalError:
        pass  # read-only: `cut_off` lets every reader tell the truth anyway
    return cut

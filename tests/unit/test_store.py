"""The SQLite store: what the recorder writes, a locked file, sessions cut off mid-run."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from kit import rows, run_cli
from goalbot.events import Actor, Bus, Emitter, EventType
from storage.db import connect, kept_open, mark_interrupted, opened
from storage.recorder import Recorder


def _start(emitter: Emitter) -> None:
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, goal="g", model="m", base_url="u", max_steps=5)


def test_recorder_keeps_session_row_in_step_with_events(db_path: Path) -> None:
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "s1")
    _start(emitter)
    emitter.emit(EventType.STEP_START, Actor.PLANNER, 1, index=1, description="a")
    emitter.emit(EventType.LLM_CALL, Actor.PLANNER, 1, role="planner", model="m", latency_ms=5,
                 tokens_in=10, tokens_out=2)
    emitter.emit(EventType.TASK_FAIL, Actor.SYSTEM, None, reason="gave up")
    recorder.close()
    session = rows(db_path, "select * from sessions")[0]
    assert (session["status"], session["finish_reason"]) == ("failed", "gave up")
    assert (session["steps"], session["model_calls"], session["tokens_in"], session["tokens_out"]) == (1, 1, 10, 2)
    assert rows(db_path, "pragma journal_mode")[0][0] == "wal"


def test_a_locked_database_delays_writes_but_loses_nothing(db_path: Path) -> None:
    connect(db_path).close()
    blocker = sqlite3.connect(db_path, timeout=1, check_same_thread=False)
    blocker.execute("begin exclusive")
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "s1")
    _start(emitter)
    for i in range(50):
        emitter.emit(EventType.STEP_START, Actor.PLANNER, i + 1, index=1, description=f"step {i}")
    # Hold the lock past the store's busy timeout, so the recorder has to retry.
    threading.Timer(6.0, blocker.rollback).start()
    recorder.close()
    blocker.close()
    assert recorder.warned
    assert len(rows(db_path, "select * from events")) == 51
    assert rows(db_path, "select steps from sessions")[0]["steps"] == 50


def test_a_session_whose_process_died_is_marked_interrupted(db_path: Path) -> None:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True)
    dead_pid = int(child.stdout)
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    _start(Emitter(bus, "alive"))
    _start(Emitter(bus, "cut-off"))
    recorder.close()
    db = connect(db_path)
    db.execute("update sessions set pid = ? where id = 'cut-off'", [dead_pid])
    db.conn.commit()
    assert mark_interrupted(db) == ["cut-off"]
    statuses = {r["id"]: r["status"] for r in rows(db_path, "select id, status from sessions")}
    assert statuses == {"alive": "running", "cut-off": "interrupted"}


def test_sessions_and_tail_on_a_missing_store_say_so(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    for command in (["sessions"], ["tail"]):
        result = run_cli("--db", str(missing), *command)
        assert result.returncode == 2
        assert f"no goalbot store at {missing}" in result.stderr
        assert "Traceback" not in result.stderr
    assert not missing.exists()


def test_store_in_an_unwritable_place(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    result = run_cli("--db", str(blocked / "goalbot.db"), "run", "x", "--no-tui", "--yes")
    assert result.returncode == 2
    assert "cannot open the store" in result.stderr and "Traceback" not in result.stderr


def test_a_store_kept_open_is_not_checkpointed_at_every_close(tmp_path: Path) -> None:
    # SQLite folds the WAL back into the file and deletes it when a store's last connection
    # closes: a batch's slot, opening its store four times a job, paid that each time.
    path = tmp_path / "store.db"
    assert kept_open(path) is None and not path.exists()  # no store there: none is made
    with opened(path) as db:
        db["notes"].insert({"text": "one"})
    assert not Path(f"{path}-wal").exists()  # the last connection closed: folded back
    kept = kept_open(path)
    assert kept is not None
    try:
        with opened(path) as db:
            db["notes"].insert({"text": "two"})
        assert Path(f"{path}-wal").exists()  # another connection is open: this close was not the last
        with opened(path, create=False) as db:
            assert [row["text"] for row in db["notes"].rows] == ["one", "two"]
    finally:
        kept.close()
    assert not Path(f"{path}-wal").exists()

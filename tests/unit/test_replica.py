"""Copying a session from a worker's store into the coordinator's: what is new since the last
look, applied so that the same changes twice leave the store as once, artifacts in messages of
bounded size, and a session the coordinator already ended never brought back to running."""

from __future__ import annotations

from pathlib import Path

from goalbot.events import Actor, Bus, Emitter, EventType, new_session_id
from storage.db import connect
from storage.recorder import Recorder
from storage.replica import Cursor, apply, changes_since


def _recorded(db_path: Path, pictures: int = 0, end: bool = True) -> str:
    """A session written as a run writes one: its start, a step, pictures, and its end."""
    recorder, bus = Recorder(db_path), Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, new_session_id())
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, goal="read the seats", url="http://shop.test/", model="m",
                 base_url="http://model.test/v1", max_steps=5)
    emitter.emit(EventType.STEP_START, Actor.NAVIGATOR, 1, index=1, description="read them")
    for number in range(pictures):
        emitter.artifact("screenshot", "image/jpeg", bytes([number]) * 1000)
    if end:
        emitter.emit(EventType.TASK_OK, Actor.SYSTEM, reason="read", answer="A7")
    recorder.close()
    return emitter.session_id


def _rows(db_path: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    db = connect(db_path)
    try:
        return [tuple(row) for row in db.execute(sql, list(params)).fetchall()]
    finally:
        db.close()


def test_a_session_copied_is_the_same_session_and_copying_again_changes_nothing(tmp_path: Path) -> None:
    worker, coordinator = tmp_path / "worker.db", tmp_path / "coordinator.db"
    session_id = _recorded(worker, pictures=2)
    source, target = connect(worker), connect(coordinator)
    cursor = Cursor()
    changes = changes_since(source, session_id, cursor)
    with target.conn:
        apply(target, changes, host="w1@east")
        apply(target, changes, host="w1@east")  # a stream read again after a crash
    assert changes_since(source, session_id, cursor).empty()  # the cursor moved past everything
    source.close()
    target.close()
    events = "select seq, type, data from events where session_id = ? order by seq"
    assert _rows(coordinator, events, session_id) == _rows(worker, events, session_id)
    assert _rows(coordinator, "select status, answer, host, pid from sessions") == [("ok", "A7", "w1@east", None)]
    pictures = "select id, content from artifacts order by id"
    assert _rows(coordinator, pictures) == _rows(worker, pictures) and len(_rows(coordinator, pictures)) == 2


def test_artifacts_wait_for_the_next_message_past_the_size_limit(tmp_path: Path) -> None:
    worker = tmp_path / "worker.db"
    session_id = _recorded(worker, pictures=3)
    source, cursor = connect(worker), Cursor()
    sizes = []
    while not (changes := changes_since(source, session_id, cursor, max_bytes=1500)).empty():
        sizes.append(len(changes.artifacts))
    source.close()
    assert sizes == [1, 1, 1]  # 1000 bytes each: never two in one message of at most 1500


def test_a_session_the_coordinator_ended_is_not_brought_back_to_running(tmp_path: Path) -> None:
    worker, coordinator = tmp_path / "worker.db", tmp_path / "coordinator.db"
    session_id = _recorded(worker, end=False)  # still running on the worker
    source, target = connect(worker), connect(coordinator)
    with target.conn:
        apply(target, changes_since(source, session_id, Cursor()), host="w1@east")
        # Its worker was lost: the coordinator marked it interrupted. A late copy must not undo that.
        target.execute("update sessions set status = 'interrupted' where id = ?", [session_id])
        apply(target, changes_since(source, session_id, Cursor()), host="w1@east")
    source.close()
    target.close()
    assert _rows(coordinator, "select status from sessions") == [("interrupted",)]

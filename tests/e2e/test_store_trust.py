"""Never lose an event: what the store cannot take stops the run loudly, a store that cannot be
written is refused before the browser starts, resumes and fresh stores are safe from races, and
a damaged store is one line and exit 2 from every command. Real files, real processes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from kit import REPO, demo_script, finished, plan, rows, run_cli, stored_events, verdict, wait_until
from goalbot.events import Actor, Bus, Emitter, EventType
from storage.db import connect
from storage.recorder import Recorder


def _start(emitter: Emitter, goal: str = "g", **extra: object) -> None:
    emitter.emit(EventType.TASK_START, Actor.SYSTEM, None, goal=goal, model="m", base_url="http://x/v1",
                 max_steps=3, **extra)


def test_what_no_column_can_hold_is_stored_all_the_same(db_path: Path) -> None:
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    emitter = Emitter(bus, "s1")
    _start(emitter, goal="caf\udce9 \ud800 goal")  # bytes that were not UTF-8, a lone surrogate
    emitter.emit(EventType.LLM_CALL, Actor.PLANNER, None, role="planner", model="m", latency_ms=1,
                 tokens_in=2**70, tokens_out=3)
    emitter.emit(EventType.ACT_OK, Actor.NAVIGATOR, 1, action={"name": "type", "text": "\udcff"},
                 message="ok \ud83d", score=float("nan"))
    emitter.emit(EventType.TASK_OK, Actor.SYSTEM, None, reason="done")
    recorder.close()
    assert recorder.failure is None
    assert [e["type"] for e in stored_events(db_path)] == ["TASK_START", "LLM_CALL", "ACT_OK", "TASK_OK"]
    session = rows(db_path, "select status, goal, tokens_in from sessions")[0]
    assert session["status"] == "ok" and session["goal"] == "caf\ufffd \ufffd goal"
    assert session["tokens_in"] == 2**63 - 1


def test_a_store_that_fails_mid_run_stops_it_loudly(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "sign in and turn on dark mode",
         "--url", f"{site.url}/login", "--no-tui", "--yes", "--base-url", model.base_url, "--model",
         "scripted", "--min-interval", "2"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: db_path.exists() and rows(db_path, "select 1 from events where type = 'STEP_START'"),
                   what="the first step")
        with sqlite3.connect(db_path) as other:  # another program breaks the store under the run
            other.execute("drop table events")
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 2, err
    assert "cannot be written any more" in err and "Traceback" not in err
    assert "session" in err and " ok:" not in err


@contextmanager
def _immutable(path: Path) -> Iterator[None]:
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
        pytest.skip("chattr +i is not available here (needs root on ext4)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)])


def test_a_store_that_cannot_be_written_is_refused_before_the_browser_starts(hardsite, db_path: Path) -> None:
    connect(db_path).close()
    hardsite.reset()
    with _immutable(db_path):
        result = run_cli("--db", str(db_path), "run", "look", "--url", hardsite.page("home"), "--no-tui", "--yes")
        listing = run_cli("--db", str(db_path), "sessions", "--plain")  # reading still works
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot be written" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert hardsite.requests == []  # no browser ever opened the page
    assert listing.returncode == 0 and "no sessions stored yet" in listing.stdout


def test_two_resumes_at_once_take_the_session_once(hardsite, model_server, db_path: Path) -> None:
    model = model_server({"planner": [plan("Look at the page")] * 2, "navigator": [finished()] * 2,
                          "validator": [verdict(True, "looked")] * 4})
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    _start(Emitter(bus, "cut-off"), url=hardsite.page("home"), options={}, goal="look at the page")
    recorder.close()
    with sqlite3.connect(db_path) as db:
        db.execute("update sessions set status = 'interrupted', model = 'scripted', base_url = ?", [model.base_url])
    command = [sys.executable, "-m", "goalbot", "--db", str(db_path), "resume", "cut-off", "--no-tui", "--yes"]
    both = [subprocess.Popen(command, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = sorted((p.wait(120), p.stderr.read()) for p in both)
    assert [code for code, _ in outcomes] == [0, 2], outcomes
    assert "another process" in outcomes[1][1]
    assert all("Traceback" not in err and "UNIQUE" not in err for _, err in outcomes)
    assert sum(r["role"] == "planner" for r in model.requests) == 1
    seqs = [r["seq"] for r in rows(db_path, "select seq from events where session_id = 'cut-off' order by seq")]
    assert seqs == list(range(1, len(seqs) + 1))


def test_many_processes_opening_a_fresh_store_at_once(tmp_path: Path) -> None:
    go = tmp_path / "go"
    opener = ("import os, sys, time; from pathlib import Path\n"
              "while not os.path.exists(sys.argv[1]): time.sleep(0.001)\n"
              "from storage.db import connect; connect(Path(sys.argv[2])).close()")
    for round_ in range(3):
        store = tmp_path / f"round{round_}" / "goalbot.db"
        store.parent.mkdir()
        openers = [subprocess.Popen([sys.executable, "-c", opener, str(go), str(store)], cwd=REPO,
                                    stderr=subprocess.PIPE, text=True) for _ in range(12)]
        go.touch()
        failures = [p.stderr.read() for p in openers if p.wait(120) != 0]
        go.unlink()
        assert failures == []
        assert rows(store, "pragma user_version")[0][0] >= 1


def _damage(kind: str, db_path: Path) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "random-bytes":
        db_path.write_bytes(os.urandom(8192))
        return
    if kind == "foreign-schema":
        with sqlite3.connect(db_path) as db:
            db.execute("create table sessions (id integer primary key, title text)")
        return
    connect(db_path).close()
    if kind == "truncated":
        with sqlite3.connect(db_path) as db:  # a store with pages, then cut off in the middle
            db.execute("pragma journal_mode = delete")
            db.executemany("insert into commands (session_id, ts, kind, payload) values ('s', 't', 'k', ?)",
                           [("x" * 2000,)] * 50)
        data = db_path.read_bytes()
        db_path.write_bytes(data[: len(data) // 3])
    elif kind == "dropped-table":
        with sqlite3.connect(db_path) as db:
            db.execute("drop table events")


@pytest.mark.parametrize("kind", ["random-bytes", "truncated", "foreign-schema", "dropped-table"])
def test_a_damaged_store_is_one_line_and_exit_2(kind: str, db_path: Path) -> None:
    _damage(kind, db_path)
    for command in (["report"], ["sessions", "--plain"], ["tail"], ["tail", "--json"], ["resume", "x"],
                    ["run", "look", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes"]):
        result = run_cli("--db", str(db_path), *command)
        assert result.returncode == 2, (command, result.stderr)
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert str(db_path) in result.stderr


def test_a_killed_session_reads_as_interrupted_before_any_run(db_path: Path) -> None:
    recorder = Recorder(db_path)
    bus = Bus()
    recorder.attach(bus)
    _start(Emitter(bus, "killed"), goal="a goal")
    recorder.close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with sqlite3.connect(db_path) as db:
        db.execute("update sessions set pid = ?", [int(dead.stdout)])
    listing = run_cli("--db", str(db_path), "sessions", "--plain")
    assert "interrupted" in listing.stdout and "running" not in listing.stdout
    only = run_cli("--db", str(db_path), "sessions", "--plain", "--status", "interrupted")
    assert "killed" in only.stdout
    assert "WHY IT ENDED" in only.stdout and "the process ended mid-run" in only.stdout, only.stdout
    assert json.loads(run_cli("--db", str(db_path), "tail", "--json").stdout.splitlines()[0])["type"] == "TASK_START"

"""A stop takes effect before the next action starts, and the store says exactly what happened:
an action under way when the person said stop is finished and recorded, nothing after it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kit import REPO, answer, call, element, plan, rows, stored_events, types, verdict, wait_until


def test_a_stop_sent_during_an_action_lets_it_finish_and_runs_nothing_after(hardsite, model_server,
                                                                            db_path: Path) -> None:
    from tui.steering import StoreSteering

    script = {
        "planner": [plan("Export, then archive")],
        "navigator": [answer(call("click", index=element("Export")), call("click", index=element("Archive")))],
        "validator": [verdict(True, "done")],
    }
    model = model_server(script)
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "export and archive", "--url",
         hardsite.page("slow"), "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )
    try:
        # The Export click holds the page for 2.5 s: the stop arrives while it is under way.
        wait_until(lambda: db_path.exists() and rows(db_path, "select 1 from events where type = 'ACT_START'"),
                   60, "the Export click to start")
        session_id = rows(db_path, "select id from sessions")[0]["id"]
        StoreSteering(db_path, session_id).send("stop")  # as `goalbot attach` sends it
        _out, errors = run.communicate(timeout=120)
    finally:
        run.kill()
    assert "Traceback" not in errors
    events = stored_events(db_path)
    acts = [(e["type"], e["action"]["index"]) for e in events if e["type"].startswith("ACT_")]
    assert acts == [("ACT_START", 1), ("ACT_OK", 1)], acts  # Export done and recorded; Archive never begun
    assert "TASK_CANCEL" in types(events)
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"

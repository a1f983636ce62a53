"""A rerun on an app that draws itself late: widgets that come seconds after the page loaded, from
what a socket sent (Streamlit, Gradio, a dashboard), with no request for a look to wait on. The
rerun looks again while the page changes, within an expectation's patience, before it takes the
element for gone. Real Chromium, the test site, the scripted model for the recording, a dead
endpoint for the rerun."""

from __future__ import annotations

from pathlib import Path

from hardsite.server import HardSite
from kit import answer, call, element, finished, plan, run_cli, run_goal, verdict


def _trip_script() -> dict[str, object]:
    return {
        "planner": [plan("Save a trip for Mina")],
        "navigator": [
            answer(call("wait", seconds=1)),
            answer(call("type", index=element("Traveller", role="textbox"), text="Mina")),
            answer(call("click", index=element("Save trip", role="button"))),
            finished(summary="saved"),
        ],
        "validator": [verdict(True, "the trip is saved for Mina")],
    }


def test_a_rerun_waits_for_widgets_an_app_draws_late(hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    recorded, _ = run_goal(db_path, model_server(_trip_script()), hardsite.page("drawn-by-socket"),
                           "save a trip for Mina", "--save-recipe", "trip", "--var", "who=Mina")
    assert recorded.returncode == 0, recorded.stderr
    assert hardsite.reached("/api/trip", "POST") == ['{"who":"Mina"}']

    hardsite.reset()
    slow = f"{hardsite.url}/drawn-by-socket.html?ms=2200"
    rerun = run_cli("--db", str(db_path), "rerun", "trip", "--var", "who=Jun", "--url", slow, "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--model", "dead")
    assert rerun.returncode == 0, rerun.stderr
    assert hardsite.reached("/api/trip", "POST") == ['{"who":"Jun"}']

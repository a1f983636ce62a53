"""A choice policy the planner drafts from the goal's constraints is shown beside the plan; the
person edits it in the plan dialog before approving, and the run chooses by the edited rules —
and a recipe saved from the run keeps them."""

from __future__ import annotations

import json
from pathlib import Path

from kit import answer, call, finished, rows, run_cli, verdict
from dashboard_kit import on_top, screen_text, until
from hardsite.server import HardSite
from test_attach import _running_session, _start_run, reaped  # noqa: F401  (a fixture)
from seats_kit import FRIDAY, SEATS_SCHEMA, as_data
from tui.app import GoalbotApp

DRAFT = {"cheap_front": {"hard": [{"field": "available", "op": "==", "value": True},
                                  {"field": "price", "op": "<=", "value": 45}],
                         "score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": 10}],
                         "tie_break": ["price_asc"], "pick": "argmax"}}


async def test_the_person_edits_the_drafted_policy_and_the_run_chooses_by_it(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, reaped) -> None:  # noqa: F811
    hardsite.reset()
    hardsite.posted["seats"] = FRIDAY
    schema = tmp_path / "seats.schema.json"
    schema.write_text(json.dumps(SEATS_SCHEMA))
    model = model_server({
        "planner": [answer(call("plan", observation="seats", steps=["Choose a seat by policy cheap_front"],
                                policies=DRAFT, progress_percent=0, confidence=0.8))],
        "navigator": [answer(call("extract", instruction="every seat", key="seats", schema="seats"),
                             call("choose", **{"from": "seats"}, policy="cheap_front", act=True)),
                      finished(summary="picked")],
        "extractor": [answer(call("extracted", data=as_data(FRIDAY)))],
        "validator": [verdict(True, "picked"), verdict(True, "picked")],
    })
    run = _start_run(db_path, model, hardsite.page("seat-picker"), "a front-row seat under 45, the cheapest",
                     "--schema", f"seats={schema}", "--save-recipe", "seats")
    reaped.append(run)
    session_id = _running_session(db_path)
    app = GoalbotApp(db_path=db_path, session_id=session_id, opening="attach")
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: on_top(app, "PlanReviewScreen"), "the plan dialog")
        await until(pilot, lambda: "cheap_front: only available == true; price <= 45" in
                    screen_text(app, "#review-policies"), "the drafted policy beside the steps")
        await pilot.press("p")
        await until(pilot, lambda: app.screen.query_one("#review-input").has_focus, "the policies' field")
        field = app.screen.query_one("#review-input")
        field.value = field.value.replace('"op": "<=", "value": 45', '"op": "<=", "value": 50')
        await pilot.press("enter")
        await until(pilot, lambda: "price <= 50" in screen_text(app, "#review-policies")
                    and "(edited)" in screen_text(app, "#review-policies"), "the edited policy")
        field.value = ""
        await pilot.press("a")
        await until(pilot, lambda: not on_top(app, "PlanReviewScreen"), "the plan approved")
    assert run.wait(120) == 0, run.stderr.read() if run.stderr else ""
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session_id)]
    approved = next(e for e in events if e["type"] == "PLAN_APPROVED")
    assert approved["policies"]["cheap_front"]["hard"][1]["value"] == 50
    chosen = next(e for e in events if e["type"] == "CHOSEN")
    # As drafted, only B4 (row 2, $38) was under 45; under the edited 50, A2 (row 1, $49) is taken.
    assert chosen["chosen"]["label"] == "A2"
    shown = run_cli("--db", str(db_path), "recipe", "show", "seats").stdout
    assert "policy cheap_front: only available == true; price <= 50" in shown

"""The navigator's `extract` and `choose`, and both again on a rerun with no model: a run reads the
seats on a page by a schema, takes the cheapest front-row seat under a price by a policy and
clicks it; the recipe made from it reruns on the next day's seats, with another price limit,
reading the same places and choosing by the same rules — 0 model calls — and the rerun's answer
still fits the schema."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from kit import answer, call, rows, run_cli
from hardsite.server import HardSite
from seats_kit import FRIDAY, SATURDAY, SEATS_SCHEMA, as_data, record_seats, seat_files

def test_a_run_extracts_chooses_by_policy_and_clicks_the_pick(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    result, model, events = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["valid"] and read["key"] == "seats" and read["read_by"] == "model"
    assert read["place"]["fields"]["seats"]["each"] == "#seats > tbody:nth-of-type(1) > tr"  # structure, by a stable id
    chosen = next(e for e in events if e["type"] == "CHOSEN")
    assert chosen["policy"] == "cheapest_front" and chosen["chosen"]["label"] == "A2"
    why = {row["candidate"]["label"]: (row["dropped_by"], row["score"]) for row in chosen["table"]}
    assert why == {"A1": ("price > 55", None), "A2": (None, 10.0),  # the limit the run was given
                   "A7": ("available != true", None), "B4": (None, 0.0)}
    looks = [e["url"] for e in events if e["type"] == "OBSERVATION"]
    assert looks[-1].endswith("seat-picker.html?picked=A2")  # the pick's own link was clicked
    extractor = [r for r in model.requests if "You are the Extractor" in json.dumps(r["messages"])]
    assert len(extractor) == 1 and "A7\t1\t$45.00\tsold" in extractor[0]["messages"][-1]["content"]
    assert "CHOSEN" in result.stdout and "cheapest_front chose" in result.stdout
    # The log line says what was kept, in words; the fence is what the model is handed, not the person.
    kept = next(line for line in result.stdout.splitlines() if "extract(" in line and "ACT_OK" in line)
    assert "→ kept seats: {\"seats\": [" in kept and "<data>" not in kept and "untrusted" not in kept, kept
    act = next(e for e in events if e["type"] == "ACT_OK" and e["action"]["name"] == "extract")
    assert "<data>" in act["message"]  # the stored event keeps what the model was told
    report = run_cli("--db", str(db_path), "report").stdout  # the latest session's
    assert "| → | label=\"A2\", row=1, price=49.0, available=true | score 10 |" in report, report
    assert "|  | label=\"A7\", row=1, price=45.0, available=false | dropped: available != true |" in report
    shown = run_cli("--db", str(db_path), "recipe", "show", "seats").stdout
    assert "policy cheapest_front: only available == true; price <=" in shown and "needs --var MAX" in shown
    assert "reads: seats from rows '#seats > tbody:nth-of-type(1) > tr' (label, row, price, " \
           "available)" in shown


def test_the_recipe_reruns_on_changed_data_with_no_model_and_picks_by_the_same_rules(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    result, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    hardsite.posted["seats"] = SATURDAY
    rerun = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--json")
    assert rerun.returncode == 0, rerun.stderr
    session = json.loads(rerun.stdout)["session"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")]  # 0 model calls
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "places" and read["valid"] and read["data"] == as_data(SATURDAY)
    chosen = next(e for e in events if e["type"] == "CHOSEN")
    assert chosen["chosen"]["label"] == "A7"  # today's cheapest free front-row seat under 55
    assert [e["url"] for e in events if e["type"] == "OBSERVATION"][-1].endswith("picked=A7")
    # Another limit, the same rules: A9 is now allowed and row 1 still wins over the cheap C3.
    hardsite.posted["seats"] = [dict(s, status="sold") if s["label"] == "A7" else s for s in SATURDAY]
    again = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=60", "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--json")
    assert again.returncode == 0, again.stderr
    assert "picked=A9" in rows(db_path, "select data from events where session_id = ? and type = 'OBSERVATION' "
                                        "order by seq desc limit 1", json.loads(again.stdout)["session"])[0]["data"]


def test_no_candidate_left_is_a_checkpoint_never_a_silent_pick(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    result, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    hardsite.posted["seats"] = [dict(s, status="sold") for s in SATURDAY]
    rerun = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                    "--approval-timeout", "1", "--base-url", "http://127.0.0.1:9/v1")
    assert rerun.returncode != 0
    assert "no candidate is left" in rerun.stderr, rerun.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", session)]
    asked = [e for e in events if e["type"] == "APPROVAL_REQUEST"]
    assert asked and asked[0]["kind"] == "checkpoint" and "no candidate is left" in asked[0]["what"]
    chosen = [e for e in events if e["type"] == "CHOSEN"]
    assert chosen and chosen[0]["chosen"] is None and all(r["dropped_by"] for r in chosen[0]["table"])
    assert not any("picked=" in e.get("url", "") for e in events if e["type"] == "OBSERVATION")


def test_a_redesigned_page_is_read_again_by_the_model_once_and_its_new_places_kept(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    """The site turns its table into cards: the recorded places read nothing that fits the schema,
    so the rerun asks the extractor (counted like a patch), clicks today's pick, and keeps the new
    places as the recipe's next version; the rerun after it needs no model again."""
    result, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    hardsite.posted.update(seats=SATURDAY, layout="cards")
    model = model_server({"extractor": [answer(call("extracted", data=as_data(SATURDAY)))]})
    healed = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted", "--json")
    assert healed.returncode == 0, healed.stderr
    assert "kept as seats v2 (seats read again by the model, at new places)" in healed.stderr
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", json.loads(healed.stdout)["session"])]
    reads = [e for e in events if e["type"] == "EXTRACTED"]
    assert [(e["read_by"], e["valid"]) for e in reads] == [("model", True)]
    assert "article" in reads[0]["place"]["fields"]["seats"]["each"]
    assert len([e for e in events if e["type"] == "LLM_CALL"]) == 1
    assert "patched 100%" in run_cli("--db", str(db_path), "recipe", "show", "seats").stdout  # its one rerun
    assert [e["url"] for e in events if e["type"] == "OBSERVATION"][-1].endswith("picked=A7")
    again = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--json")
    assert again.returncode == 0, again.stderr
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}")) for r in rows(
        db_path, "select type, data from events where session_id = ? order by seq", json.loads(again.stdout)["session"])]
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "places" and read["data"] == as_data(SATURDAY)
    assert not [e for e in events if e["type"] == "LLM_CALL"]


def test_the_runs_answer_is_read_again_where_it_was_read(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    schema, _ = seat_files(tmp_path)
    result, _, _ = record_seats(hardsite, model_server, db_path, tmp_path, "--output-schema", str(schema), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"] == as_data(FRIDAY)
    hardsite.posted["seats"] = SATURDAY
    rerun = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--json")
    assert rerun.returncode == 0, rerun.stderr
    printed = json.loads(rerun.stdout)
    assert printed["valid"] and printed["result"] == as_data(SATURDAY) and printed["errors"] == []


async def test_the_dashboard_shows_why_the_pick_was_made(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    from dashboard_kit import on_top, until
    from goalbot.events import EventType
    from storage.db import opened
    from storage.queries import session_events
    from tui.app import GoalbotApp
    from tui.screens.event_detail import EventScreen

    result, _, events = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    with opened(db_path) as db:
        stored = session_events(db, rows(db_path, "select id from sessions")[0]["id"])
    chosen = next(e for e in stored if e.type is EventType.CHOSEN)
    app = GoalbotApp(db_path=db_path, opening="sessions")
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: on_top(app, "SessionsScreen"), "the sessions")
        await app.push_screen(EventScreen(chosen))
        await until(pilot, lambda: on_top(app, "EventScreen"), "the event's detail")
        svg = app.export_screenshot()
    drawn = html.unescape("".join(re.findall(r">([^<>]*)</text>", svg))).replace("\xa0", " ")
    for words in ("cheapest_front: only available == true", 'label="A2"', "score 10",
                  "dropped: available != true", "dropped: price > 55", "→"):
        assert words in drawn, words


def test_an_exported_recipe_keeps_its_places_and_a_tampered_schema_is_refused_on_import(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    result, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "seats-folder"
    assert run_cli("--db", str(db_path), "recipe", "export", "seats", str(folder)).returncode == 0
    workflow = json.loads((folder / "workflow.json").read_text())
    extract = next(a for step in workflow["steps"] for a in step["actions"] if a["op"] == "extract")
    assert extract["reads"]["schema"] == SEATS_SCHEMA and extract["reads"]["place"]["fields"]["seats"]["each"]
    assert run_cli("--db", str(db_path), "recipe", "import", str(folder)).returncode == 0  # seats v2
    hardsite.posted["seats"] = SATURDAY
    rerun = run_cli("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes",
                    "--base-url", "http://127.0.0.1:9/v1", "--json")
    assert rerun.returncode == 0 and json.loads(rerun.stdout)["status"] == "ok", rerun.stderr
    extract["reads"]["schema"] = {"type": "no-such-type"}
    (folder / "workflow.json").write_text(json.dumps(workflow))
    refused = run_cli("--db", str(db_path), "recipe", "import", str(folder))
    assert refused.returncode == 2 and "is not a valid JSON Schema" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr

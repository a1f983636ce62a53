"""Goals on a Streamlit app (React over a websocket, baseweb widgets): a country far down a
virtualised list, a multiselect filtered by typing, an upload, a download, a modal dialog, a risky
button and a recipe rerun with no model. Each is judged by what the app itself wrote to its state
file, never by the page or goalbot's report."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from streamlit_app import StreamlitSite, streamlit_site

pytestmark = pytest.mark.xdist_group("app-streamlit")

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, chromium: None) -> Iterator[StreamlitSite]:
    with streamlit_site(tmp_path_factory.mktemp("streamlit")) as running:
        print(f"streamlit started in {running.served.started_in:.1f} s")
        yield running


def _one_step(step: str, first: str, *answers: dict[str, Any], reason: str) -> dict[str, Any]:
    """One planned step; the navigator first waits for the widget `first` it came for: Streamlit
    draws its widgets after the page has loaded, as its script's output arrives over the
    websocket, and on a loaded machine goalbot's first look can see a page still empty
    ("Skip to main content" alone). A model reading that page waits for what it needs."""
    wait = answer(call("wait", text=first, seconds=30))
    return {"planner": [plan(step)], "navigator": [wait, *answers, finished(summary=reason)],
            "validator": [verdict(True, reason)] * 2}


def _since(app: StreamlitSite, kind: str, before: int) -> list[dict[str, Any]]:
    return app.records(kind)[before:]


def _calls(model: Any) -> int:
    return len(model.requests)


def _trip_script(name: str, country: str, notes: str) -> dict[str, Any]:
    # The list is long and virtualised: the model asks for the option by its text, as the tool offers.
    return _one_step(
        f"Fill in the trip form for {name} to {country} and save it", "이름 (Name)",
        answer(call("type", index=element("이름 (Name)", role="textbox"), text=name)),
        answer(call("select_option", index=element("Country", role="combobox"), option=country)),
        answer(call("type", index=element("메모 (Notes)", role="textbox"), text=notes)),
        answer(call("click", index=element("Save trip", role="button"))),
        # The app's answer comes over its socket after the look that followed the click: a model
        # that sees no confirmation yet waits for it, and a rerun waits for it with today's values.
        answer(call("wait", text=f"Saved the trip of {name} to {country}.", seconds=20)),
        reason=f"the trip of {name} to {country} is saved")


def test_the_trip_form_is_saved_with_a_country_far_down_the_long_list(app: StreamlitSite, model_server,
                                                                       db_path: Path) -> None:
    before = len(app.records("trip"))
    model = model_server(_trip_script("박지훈", "Uruguay", "몬테비데오에서 3박"))
    result, _ = run_goal(db_path, model, app.url, "여행 양식에 박지훈, 우루과이(Uruguay), 메모 '몬테비데오에서 3박'을 넣고 저장해 줘")
    assert result.returncode == 0, result.stderr
    trips = _since(app, "trip", before)
    assert [(t["name"], t["country"], t["notes"]) for t in trips] == [("박지훈", "Uruguay", "몬테비데오에서 3박")]
    print(f"goal trip-far-down: reached, {_calls(model)} model calls")


def test_two_topics_are_picked_by_typing_to_filter_the_multiselect(app: StreamlitSite, model_server,
                                                                   db_path: Path) -> None:
    before = len(app.records("topics"))
    topics = element("관심 주제 (Topics)", role="combobox")
    picked = _one_step(
        "Pick 경제 and 스포츠 in the topics", "Save topics",
        answer(call("type", index=topics, text="경제")),
        answer(call("click", index=element("경제", role="option"))),
        answer(call("type", index=topics, text="스포")),
        answer(call("click", index=element("스포츠", role="option"))),
        reason="경제 and 스포츠 are picked")
    model = model_server({
        "planner": [plan("Pick 경제 and 스포츠 in the topics", "Save the topics")],
        "navigator": [*picked["navigator"],
                      answer(call("click", index=element("Save topics", role="button"))),
                      finished(summary="the topics are saved")],
        "validator": [verdict(True, "경제 and 스포츠 are picked"), verdict(True, "the topics are saved")] * 2})
    result, _ = run_goal(db_path, model, app.url, "관심 주제로 경제와 스포츠를 골라 저장해 줘")
    assert result.returncode == 0, result.stderr
    assert [r["topics"] for r in _since(app, "topics", before)] == [["경제", "스포츠"]]
    print(f"goal topics: reached, {_calls(model)} model calls")


def test_a_photo_list_is_uploaded_through_the_file_uploader(app: StreamlitSite, model_server, db_path: Path,
                                                            tmp_path: Path) -> None:
    photo = tmp_path / "제주-사진.txt"
    photo.write_text("한라산 일출\n성산 일출봉\n", encoding="utf-8")
    before = len(app.records("upload"))
    model = model_server(_one_step(
        f"Upload {photo.name} as the photo", "Upload",
        answer(call("upload_file", index=element("Upload", role="button"), path=str(photo))),
        reason="the photo file is received"))
    # An upload needs a GO: the person gives it up front.
    result, _ = run_goal(db_path, model, app.url, f"사진 칸에 {photo} 파일을 올려 줘", "--allow-risky")
    assert result.returncode == 0, result.stderr
    uploads = _since(app, "upload", before)
    assert [(u["name"], u["text"]) for u in uploads] == [(photo.name, photo.read_text(encoding="utf-8"))]
    print(f"goal upload: reached, {_calls(model)} model calls")


def test_the_report_is_downloaded(app: StreamlitSite, model_server, db_path: Path) -> None:
    before = len(app.records("download"))
    model = model_server(_one_step(
        "Download the report", "Download report",
        answer(call("click", index=element("Download report", role="button"))), reason="report.csv is downloaded"))
    result, _ = run_goal(db_path, model, app.url, "download the report")
    assert result.returncode == 0, result.stderr
    served = _since(app, "download", before)
    assert len(served) == 1, served
    [kept] = rows(db_path, "select name, content from artifacts where kind = 'download'")
    # The file the browser got is the one the app made.
    assert (kept["name"], kept["content"].decode()) == ("report.csv", served[0]["content"])
    print(f"goal download: reached, {_calls(model)} model calls")


def test_the_invitation_is_confirmed_in_the_dialog(app: StreamlitSite, model_server, db_path: Path) -> None:
    before = len(app.records("invited"))
    model = model_server(_one_step(
        "Invite the club and confirm in the dialog", "Invite the club",
        answer(call("click", index=element("Invite the club", role="button"))),
        # The dialog comes when the app's answer comes back over its socket, which may be after the
        # look that followed the click: a model that sees no dialog yet waits for it.
        answer(call("wait", text="Yes, invite them", seconds=20)),
        answer(call("click", index=element("Yes, invite them", role="button"))),
        reason="the club is invited"))
    result, _ = run_goal(db_path, model, app.url, "여행 클럽을 초대하고 대화상자에서 확인해 줘")
    assert result.returncode == 0, result.stderr
    assert [r["club"] for r in _since(app, "invited", before)] == ["여행 클럽"]
    print(f"goal dialog: reached, {_calls(model)} model calls")


def _delete_everything(app: StreamlitSite, model_server: Any, db_path: Path,
                       *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    model = model_server(_one_step(
        "Press Delete everything", "Delete everything",
        answer(call("click", index=element("Delete everything", role="button"))), reason="everything is deleted"))
    result, events = run_goal(db_path, model, app.url, "delete everything", "--max-failures", "1", *flags)
    print(f"goal delete {flags or '(no GO)'}: exit {result.returncode}, {_calls(model)} model calls")
    return result, events


def test_delete_everything_waits_for_a_go_and_happens_once_with_it(app: StreamlitSite, model_server,
                                                                   tmp_path: Path) -> None:
    before = len(app.records("deleted_everything"))
    result, events = _delete_everything(app, model_server, tmp_path / "refused.db")
    request = next((e for e in events if e["type"] == "APPROVAL_REQUEST"), None)
    assert request is not None and request["kind"] == "delete", [e["type"] for e in events]
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO"), events[-1]
    assert result.returncode == 1
    assert _since(app, "deleted_everything", before) == []
    result, events = _delete_everything(app, model_server, tmp_path / "allowed.db", "--allow-risky")
    assert result.returncode == 0, result.stderr
    granted = next(e for e in events if e["type"] == "APPROVAL_GRANTED")
    assert granted["kind"] == "delete" and granted["by"] == "--allow-risky"
    assert len(_since(app, "deleted_everything", before)) == 1


def test_the_recorded_trip_form_reruns_with_a_new_name_and_country_and_no_model(app: StreamlitSite, model_server,
                                                                                db_path: Path) -> None:
    before = len(app.records("trip"))
    model = model_server(_trip_script("이서연", "Austria", "빈 음악회"))
    result, _ = run_goal(db_path, model, app.url, "save the trip of 이서연 to Austria",
                         "--save-recipe", "trip", "--var", "name=이서연", "--var", "country=Austria")
    assert result.returncode == 0, result.stderr
    assert "saved recipe trip v1" in result.stderr, result.stderr
    rerun = run_cli("--db", str(db_path), "rerun", "trip", "--var", "name=최유나", "--var", "country=Argentina",
                    "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--model", "dead")
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    trips = [(t["name"], t["country"], t["notes"]) for t in _since(app, "trip", before)]
    assert trips == [("이서연", "Austria", "빈 음악회"), ("최유나", "Argentina", "빈 음악회")]
    # The rerun ended on the app's own confirmation of today's values, read in its status region.
    confirmed = rows(db_path, "select data from events where session_id = (select id from sessions order by "
                              "started_at desc limit 1) and type = 'ACT_OK'")
    assert any("Saved the trip of 최유나 to Argentina." in row["data"] for row in confirmed), confirmed
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    calls = rows(db_path, "select count(*) from events where session_id = ? and type = 'LLM_CALL'", session)[0][0]
    assert calls == 0
    print(f"goal trip recipe: recorded with {_calls(model)} model calls, rerun with {calls}")

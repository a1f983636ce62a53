"""Goals in JupyterLab (a Lumino single-page app): a new text file renamed in a modal dialog (and
rerun as a recipe with no model), a new folder, an upload through the file browser's button, a
download from the context menu, a delete behind its confirmation dialog (risky: NOT GO, then GO)
and text typed into the CodeMirror 6 editor and saved. Each is judged by the files in the folder
JupyterLab serves (and, for the download, by its own log), never by the page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from jupyter_app import SEED, JupyterLab, jupyter_lab
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict

pytestmark = pytest.mark.xdist_group("app-jupyter")

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, chromium: None) -> Iterator[JupyterLab]:
    with jupyter_lab(tmp_path_factory.mktemp("jupyter")) as running:
        print(f"jupyterlab started in {running.served.started_in:.1f} s")
        yield running


# JupyterLab draws itself after the page has loaded (its splash first, then the shell); on a
# loaded machine the first look can come before it. A model seeing the splash waits for the
# launcher it came for.
WAIT_FOR_LAB = answer(call("wait", text="Text File", seconds=60))


def _script(steps: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """One planned step per entry, each the navigator's answers then its `finished`."""
    navigator = [a for step, answers in steps for a in [*answers, finished(summary=f"done: {step}")]]
    return {"planner": [plan(*[step for step, _ in steps])], "navigator": navigator,
            "validator": [verdict(True, f"done: {step}") for step, _ in steps] * 2}


def _calls(model: Any) -> int:
    return len(model.requests)


def _filter_to(name: str) -> list[dict[str, Any]]:
    """The file browser shows the folder's files; its filter narrows it to the one wanted."""
    return [answer(call("click", index=element("Toggle File Filter", role="button"))),
            answer(call("type", index=element("Filter files by name", role="searchbox"), text=name))]


def _new_text_file_named(name: str) -> dict[str, Any]:
    return _script([
        ("Create a new text file", [WAIT_FOR_LAB, answer(call("click", index=element("Text File", role="button")))]),
        (f"Rename it to {name}", [
            answer(call("click", index=element("File", role="menuitem"))),
            answer(call("click", index=element("Rename Text…", role="menuitem"))),
            answer(call("type", index=element("New Name", role="textbox"), text=name)),
            answer(call("click", index=element("Rename", role="button"))),
        ]),
    ])


def _untitled(lab: JupyterLab) -> set[str]:
    return {f for f in lab.files() if f.startswith("untitled")}


def test_a_new_text_file_is_renamed_in_the_dialog_and_reruns_as_a_recipe_with_no_model(
        lab: JupyterLab, model_server, db_path: Path) -> None:
    model = model_server(_new_text_file_named("장보기.txt"))
    result, _ = run_goal(db_path, model, lab.start_url, "새 텍스트 파일을 만들고 이름을 장보기.txt로 바꿔 줘",
                         "--save-recipe", "text-file", "--var", "name=장보기.txt")
    assert result.returncode == 0, result.stderr
    assert "장보기.txt" in lab.files() and _untitled(lab) == set(), lab.files()
    assert (lab.root / "장보기.txt").read_text() == ""
    print(f"goal new text file: reached, {_calls(model)} model calls")
    rerun = run_cli("--db", str(db_path), "rerun", "text-file", "--var", "name=여행-준비.txt",
                    "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--model", "dead")
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert {"장보기.txt", "여행-준비.txt"} <= lab.files() and _untitled(lab) == set(), lab.files()
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    calls = rows(db_path, "select count(*) from events where session_id = ? and type = 'LLM_CALL'", session)[0][0]
    assert calls == 0
    print(f"goal text-file recipe rerun: reached, {calls} model calls")


def test_a_new_folder_is_made_and_named(lab: JupyterLab, model_server, db_path: Path) -> None:
    model = model_server(_script([("Make a folder named 사진 모음", [
        WAIT_FOR_LAB,
        answer(call("click", index=element("New Folder", role="button"))),
        # The new folder's name is edited in place, in the list: a field that takes Enter.
        answer(call("type", index=element("Untitled Folder", role="textbox"), text="사진 모음", submit=True)),
    ])]))
    result, _ = run_goal(db_path, model, lab.start_url, "'사진 모음'이라는 새 폴더를 만들어 줘")
    assert result.returncode == 0, result.stderr
    assert (lab.root / "사진 모음").is_dir(), lab.files()
    assert not [f for f in lab.files() if f.startswith("Untitled Folder")], lab.files()
    print(f"goal new folder: reached, {_calls(model)} model calls")


def test_a_file_is_uploaded_through_the_file_browsers_button(lab: JupyterLab, model_server, db_path: Path,
                                                            tmp_path: Path) -> None:
    upload = tmp_path / "예산안-2027.csv"
    upload.write_text("항목,금액\n교통,120000\n숙박,340000\n", encoding="utf-8")
    model = model_server(_script([(f"Upload {upload.name}", [
        WAIT_FOR_LAB,
        answer(call("upload_file", index=element("Upload Files", role="button"), path=str(upload))),
    ])]))
    # An upload needs a GO: the person gives it up front.
    result, _ = run_goal(db_path, model, lab.start_url, f"{upload} 파일을 올려 줘", "--allow-risky")
    assert result.returncode == 0, result.stderr
    landed = lab.root / upload.name
    assert landed.exists() and landed.read_bytes() == upload.read_bytes(), lab.files()
    print(f"goal upload: reached, {_calls(model)} model calls")


def test_a_file_is_downloaded_from_the_context_menu(lab: JupyterLab, model_server, db_path: Path) -> None:
    served_before = len(_served_downloads(lab, "report.csv"))
    model = model_server(_script([("Download report.csv", [
        WAIT_FOR_LAB, *_filter_to("report"),
        answer(call("right_click", index=element("report.csv"))),
        answer(call("click", index=element("Download", role="menuitem"))),
    ])]))
    result, _ = run_goal(db_path, model, lab.start_url, "download report.csv")
    assert result.returncode == 0, result.stderr
    assert len(_served_downloads(lab, "report.csv")) == served_before + 1, lab.log()[-3000:]
    [kept] = rows(db_path, "select name, content from artifacts where kind = 'download'")
    assert (kept["name"], kept["content"].decode()) == ("report.csv", (lab.root / "report.csv").read_text())
    print(f"goal download: reached, {_calls(model)} model calls")


def _served_downloads(lab: JupyterLab, name: str) -> list[str]:
    """The requests for the file's content that JupyterLab's server answered with 200 (its log)."""
    return re.findall(rf"200 GET /files/{re.escape(name)}\?[^\n]*", lab.log())


def _delete(lab: JupyterLab, model_server: Any, db_path: Path, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    model = model_server(_script([
        ("Find old-draft.txt in the file browser", [WAIT_FOR_LAB, *_filter_to("old-draft")]),
        ("Delete old-draft.txt", [
            answer(call("right_click", index=element("old-draft.txt"))),
            answer(call("click", index=element("Delete", role="menuitem"))),
            answer(call("click", index=element("Delete", role="button"))),  # the confirmation dialog's
        ]),
    ]))
    result, events = run_goal(db_path, model, lab.start_url, "old-draft.txt 파일을 삭제해 줘", "--max-failures", "1",
                              *flags)
    print(f"goal delete {flags or '(no GO)'}: exit {result.returncode}, {_calls(model)} model calls")
    return result, events


def test_deleting_a_file_waits_for_a_go_and_happens_with_it(lab: JupyterLab, model_server, tmp_path: Path) -> None:
    draft = lab.root / "old-draft.txt"
    result, events = _delete(lab, model_server, tmp_path / "refused.db")
    request = next((e for e in events if e["type"] == "APPROVAL_REQUEST"), None)
    assert request is not None and request["kind"] == "delete", [e["type"] for e in events]
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO"), events[-1]
    assert result.returncode == 1
    assert draft.read_text() == SEED["old-draft.txt"]
    result, events = _delete(lab, model_server, tmp_path / "allowed.db", "--allow-risky")
    assert result.returncode == 0, result.stderr
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert granted and all(g["kind"] == "delete" and g["by"] == "--allow-risky" for g in granted), granted
    assert not draft.exists(), lab.files()
    assert {"notes.txt", "회의록.txt", "report.csv"} <= lab.files()  # that one file, nothing else


def test_text_typed_into_the_editor_is_saved_to_the_file(lab: JupyterLab, model_server, db_path: Path) -> None:
    minutes = lab.root / "회의록.txt"
    text = "다음 회의는 목요일 오후 3시"
    model = model_server(_script([
        ("Open 회의록.txt", [WAIT_FOR_LAB, *_filter_to("회의록"),
                           answer(call("double_click", index=element("회의록.txt")))]),
        (f"Replace its text with {text} and save it", [
            # CodeMirror's editing area is a contenteditable with no name of its own: the one textbox.
            answer(call("type", index=element("", role="textbox"), text=text)),
            answer(call("hotkey", keys=["Control", "s"])),
        ]),
    ]))
    result, _ = run_goal(db_path, model, lab.start_url, f"회의록.txt의 내용을 '{text}'로 바꾸고 저장해 줘")
    assert result.returncode == 0, result.stderr
    assert minutes.read_text(encoding="utf-8").strip() == text
    print(f"goal editor: reached, {_calls(model)} model calls")

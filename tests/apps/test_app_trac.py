"""Trac 1.6, driven as its users drive it: new tickets through its form of selects, comments,
an attachment, a wiki edit, a custom query, a CSV report, and the deletion of a wiki page behind
its confirmation. Every goal is judged from Trac's own database (ENV/db/trac.db) and its
attachment files, never from the page or from goalbot's own report."""

from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from apps_kit import read_off_page
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from trac_app import Trac, served_trac

pytestmark = pytest.mark.xdist_group("app-trac")

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


@pytest.fixture(scope="module")
def trac(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Trac]:
    with served_trac(tmp_path_factory.mktemp("trac")) as served:
        print(f"\nTrac started in {served.started_in:.2f} s")
        yield served


def fresh(word: str) -> str:
    """A name no other test (nor an earlier run of this one) used: each test stays independent."""
    return f"{word} {uuid.uuid4().hex[:6]}"


def model_calls(db_path: Path, session: str | None = None) -> int:
    if session is None:
        return len(rows(db_path, "select 1 from events where type = 'LLM_CALL'"))
    return len(rows(db_path, "select 1 from events where type = 'LLM_CALL' and session_id = ?", session))


def last_session(db_path: Path) -> str:
    return str(rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"])


def said(result: Any, events: list[dict[str, Any]]) -> str:
    """What a failing run said, for the assertion message."""
    return f"{result.stderr[-3000:]}\n{[e['type'] for e in events][-30:]}"


def one_step(step: str, *actions: dict[str, Any], reason: str = "done", extractor: list[Any] | None = None
             ) -> dict[str, Any]:
    """A one-step plan: the navigator's actions (one answer each, as a model reading each new page
    answers), then `finished`; the validator agrees when the step and the goal are done."""
    script: dict[str, Any] = {"planner": [plan(step)],
                              "navigator": [answer(a) for a in actions] + [finished(summary=reason)],
                              "validator": [verdict(True, reason)] * 2}
    if extractor:
        script["extractor"] = extractor
    return script


def new_ticket_actions(summary: str, description: str, component: str, priority: str) -> list[dict[str, Any]]:
    return [call("type", index=element("Summary:", role="textbox"), text=summary),
            call("type", index=element("Description", role="textbox"), text=description),
            call("select_option", index=element("Component:", role="combobox"), option=component),
            call("select_option", index=element("Priority:", role="combobox"), option=priority),
            call("scroll", direction="down"),
            call("click", index=element("Create ticket", role="button"))]


def test_a_new_ticket_gets_its_summary_component_priority_and_description(trac: Trac, model_server,
                                                                          db_path: Path) -> None:
    summary = fresh("결제 화면에서 쿠폰이 적용되지 않음")
    model = model_server(one_step("Fill in the new ticket form and create it",
                                  *new_ticket_actions(summary, "쿠폰 코드를 넣어도 금액이 그대로입니다.", "결제",
                                                      "critical"), reason="ticket created"))
    result, events = run_goal(db_path, model, f"{trac.url}/newticket",
                              f"'{summary}' 티켓을 결제 컴포넌트, critical 우선순위로 만들어 주세요")
    assert result.returncode == 0, said(result, events)
    ticket = trac.ticket(summary)
    assert ticket is not None, said(result, events)
    assert (ticket["component"], ticket["priority"], ticket["status"]) == ("결제", "critical", "new")
    assert ticket["description"] == "쿠폰 코드를 넣어도 금액이 그대로입니다."
    assert len(trac.tickets_named(summary)) == 1
    print(f"new ticket: reached, {model_calls(db_path)} model calls")


def test_a_comment_lands_on_the_ticket(trac: Trac, model_server, db_path: Path) -> None:
    comment = fresh("재현했습니다: 두 번째 클릭에서 중복 결제")
    model = model_server(one_step("Write the comment and submit it",
                                  call("type", index=element("You may use WikiFormatting here.", role="textbox"),
                                       text=comment),
                                  call("scroll", direction="down"),
                                  call("click", index=element("Submit changes", role="button")),
                                  reason="comment added"))
    before = trac.comments(1)
    # A comment is published to everyone who watches the ticket: sending, which needs a GO.
    result, events = run_goal(db_path, model, f"{trac.url}/ticket/1", f"add the comment '{comment}' to ticket #1",
                              "--allow-risky")
    assert result.returncode == 0, said(result, events)
    assert trac.comments(1) == [*before, comment], said(result, events)
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert [e["kind"] for e in granted] == ["send"], granted
    print(f"comment: reached, {model_calls(db_path)} model calls")


def test_a_file_is_attached_to_a_ticket(trac: Trac, model_server, db_path: Path, tmp_path: Path) -> None:
    log = tmp_path / f"error-{uuid.uuid4().hex[:6]}.log"
    log.write_text("2026-12-01 결제 실패: timeout\n", encoding="utf-8")
    model = model_server(one_step("Choose the file and add the attachment",
                                  call("upload_file", index=element("File", role="button"), path=str(log)),
                                  call("type", index=element("Description of the file", role="textbox"),
                                       text="오류 기록"),
                                  call("click", index=element("Add attachment", role="button")),
                                  reason="attached"))
    result, events = run_goal(db_path, model, f"{trac.url}/attachment/ticket/2/?action=new",
                              f"attach {log} to ticket #2", "--allow-risky")
    assert result.returncode == 0, said(result, events)
    attached = [r for r in trac.attachments(2) if r["filename"] == log.name]
    assert len(attached) == 1, said(result, events)
    assert attached[0]["description"] == "오류 기록" and attached[0]["size"] == log.stat().st_size
    assert trac.attached_file(2, log.name).read_bytes() == log.read_bytes()
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert [e["kind"] for e in granted] == ["upload"], granted
    print(f"attachment: reached, {model_calls(db_path)} model calls")


def _edit_wiki(trac: Trac, model_server, db_path: Path, page: str, goal: str, step: str,
               *typing: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    model = model_server(one_step(step, *typing, call("scroll", direction="down"),
                                  call("click", index=element("Submit changes", role="button")),
                                  reason="page saved"))
    return run_goal(db_path, model, f"{trac.url}/wiki/{page}?action=edit", goal)


def _wiki_page(trac: Trac) -> str:
    page = f"Notes{uuid.uuid4().hex[:6]}"
    trac.add_wiki_page(page, "= 주간 회의 =\n\n안건 없음.\n")
    return page


AGENDA = "= 주간 회의 =\n\n * 결제 오류 우선 처리\n * 검색 속도 개선\n"


def test_a_wiki_page_is_edited_in_its_textarea(trac: Trac, model_server, db_path: Path) -> None:
    page = _wiki_page(trac)
    result, events = _edit_wiki(trac, model_server, db_path, page, f"{page} 위키 페이지에 안건 두 개를 적고 저장",
                                "Replace the page's text and save it",
                                call("type", index=element("text", role="textbox"), text=AGENDA))
    assert result.returncode == 0, said(result, events)
    assert trac.wiki_versions(page) == 2, said(result, events)
    assert (trac.wiki_text(page) or "").replace("\r\n", "\n") == AGENDA
    print(f"wiki edit: reached, {model_calls(db_path)} model calls")


def test_a_word_made_bold_with_the_wiki_toolbar(trac: Trac, model_server, db_path: Path) -> None:
    """The toolbar's bold button puts **** at the caret and leaves the caret between the pairs;
    the word typed next belongs there, as it does when a person types it."""
    page = _wiki_page(trac)
    text = f"{AGENDA}\n"
    result, events = _edit_wiki(trac, model_server, db_path, page, f"{page} 페이지 끝에 '중요'를 굵게 써서 저장",
                                "Write the agenda, add a bold word with the toolbar's bold button, and save",
                                call("type", index=element("text", role="textbox"), text=text),
                                call("click", index=element("Bold text", role="link")),
                                call("type", index=element("text", role="textbox"), text="중요", clear=False))
    assert result.returncode == 0, said(result, events)
    assert (trac.wiki_text(page) or "").replace("\r\n", "\n") == f"{text}**중요**"
    print(f"wiki toolbar: reached, {model_calls(db_path)} model calls")


COUNT = {"type": "object", "required": ["count"], "additionalProperties": False,
         "properties": {"count": {"type": "integer", "minimum": 0}}}


def test_a_custom_query_filtered_by_component_counts_that_components_open_tickets(
        trac: Trac, model_server, db_path: Path, tmp_path: Path) -> None:
    schema = tmp_path / "count.schema.json"
    schema.write_text(json.dumps(COUNT))
    model = model_server(one_step("Add a Component filter set to 검색 and update the query",
                                  call("select_option", index=element("And", role="combobox"), option="Component"),
                                  call("select_option", index=element("Component", role="combobox"), option="검색"),
                                  call("click", index=element("Update", role="button")),
                                  reason="filtered",
                                  # Trac's own heading, "Custom Query (N matches)", on the page the model is sent.
                                  extractor=[answer(call("extracted", data={
                                      "count": read_off_page(r"Custom Query \((\d+) match", "integer")}))]))
    result, events = run_goal(db_path, model, f"{trac.url}/query", "검색 컴포넌트의 열린 티켓은 몇 개인가요?",
                              "--output-schema", str(schema), "--json")
    assert result.returncode == 0, said(result, events)
    open_in_search = trac.query("select count(*) as n from ticket where component = '검색' and status != 'closed'")
    assert json.loads(result.stdout)["result"] == {"count": open_in_search[0]["n"]}
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert "component=%EA%B2%80%EC%83%89" in read["url"], read["url"]  # the query Trac ran was the filtered one
    print(f"custom query: reached, {model_calls(db_path)} model calls")


def test_the_active_tickets_report_downloads_as_csv(trac: Trac, model_server, db_path: Path) -> None:
    model = model_server(one_step("Download the report as comma-delimited text",
                                  call("click", index=element("Comma-delimited Text", role="link")),
                                  reason="downloaded"))
    result, events = run_goal(db_path, model, f"{trac.url}/report/1", "download the active tickets report as CSV")
    assert result.returncode == 0, said(result, events)
    [stored] = rows(db_path, "select name, content from artifacts where kind = 'download'")
    table = list(csv.DictReader(io.StringIO(stored["content"].decode("utf-8-sig"))))
    active = trac.query("select id, summary from ticket where status != 'closed'")
    assert sorted((int(r["ticket"]), r["summary"]) for r in table) == sorted((r["id"], r["summary"]) for r in active)
    print(f"report csv: reached, {model_calls(db_path)} model calls")


def _delete_page(trac: Trac, model_server, db_path: Path, page: str, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    model = model_server({"planner": [plan("Confirm the deletion of the page")] * 2,
                          "navigator": [answer(call("click", index=element("Delete page", role="button"))),
                                        finished(summary="deleted"), finished(False, "not deleted")],
                          "validator": [verdict(True, "the page is gone")] * 2})
    return run_goal(db_path, model, f"{trac.url}/wiki/{page}?action=delete", f"delete the wiki page {page}",
                    "--max-failures", "1", *flags)


def test_deleting_a_wiki_page_needs_a_go_and_happens_once_with_it(trac: Trac, model_server, db_path: Path) -> None:
    page = f"Old{uuid.uuid4().hex[:6]}"
    trac.add_wiki_page(page, "= 지난 계획 =\n\n더 이상 쓰지 않음.\n")
    result, events = _delete_page(trac, model_server, db_path, page)
    request = next((e for e in events if e["type"] == "APPROVAL_REQUEST"), None)
    assert request is not None, said(result, events)
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO"), said(result, events)
    assert result.returncode == 1
    assert trac.wiki_versions(page) == 1  # nothing reached Trac
    result, events = _delete_page(trac, model_server, db_path.with_name("granted.db"), page, "--allow-risky")
    assert result.returncode == 0, said(result, events)
    assert trac.wiki_versions(page) == 0
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert len(granted) == 1 and granted[0]["by"] == "--allow-risky", said(result, events)
    print(f"wiki delete: NOT GO without --allow-risky, deleted once with it, "
          f"{model_calls(db_path) + model_calls(db_path.with_name('granted.db'))} model calls in all")


def test_creating_a_ticket_is_kept_as_a_recipe_and_rerun_with_a_new_summary_and_no_model(
        trac: Trac, model_server, db_path: Path) -> None:
    summary, later = fresh("영수증 메일이 오지 않음"), fresh("주문 내역이 두 번 보임")
    model = model_server(one_step("Fill in the new ticket form and create it",
                                  *new_ticket_actions(summary, "확인 부탁드립니다.", "결제", "major"),
                                  reason="ticket created"))
    result, events = run_goal(db_path, model, f"{trac.url}/newticket", f"create a ticket {summary}",
                              "--save-recipe", "trac-ticket", "--var", f"summary={summary}")
    assert result.returncode == 0, said(result, events)
    assert "saved recipe trac-ticket v1" in result.stderr, result.stderr
    first = trac.ticket(summary)
    assert first is not None
    rerun = run_cli("--db", str(db_path), "rerun", "trac-ticket", "--var", f"summary={later}", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT, "--model", "dead", timeout=180)
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    made = trac.tickets_named(later)
    # Trac sent the browser to /ticket/<a new id>: a new ticket, of the recorded component and priority.
    assert len(made) == 1 and made[0]["id"] > first["id"], rerun.stderr[-3000:]
    assert (made[0]["component"], made[0]["priority"], made[0]["description"]) == ("결제", "major", "확인 부탁드립니다.")
    assert model_calls(db_path, last_session(db_path)) == 0
    print(f"recipe: recorded in {model_calls(db_path)} model calls, rerun with 0")

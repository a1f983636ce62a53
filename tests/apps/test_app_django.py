"""Django's admin, driven as its users drive it: signing in with a secret, adding users and giving
them permissions through the two-box Filter picker (about 40 permissions), a book whose author
is picked through the select2 autocomplete, a country far down a list of 48, the changelist's
search and its list filter, the calendar, a deletion through the confirmation page (risky: it waits for a GO), Korean
goals and data, and a recipe rerun with no model. Every goal is judged from the site's own SQLite
database, never from the page or from what goalbot says."""

from __future__ import annotations

import datetime
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from django_app import ADMIN_PASSWORD, DjangoSite, django_site
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict

pytestmark = pytest.mark.xdist_group("app-django")

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model


@pytest.fixture(scope="module")
def django(tmp_path_factory: pytest.TempPathFactory, chromium: None) -> Iterator[DjangoSite]:
    with django_site(tmp_path_factory.mktemp("django")) as site:
        print(f"\nDjango admin: migrated and seeded in {site.prepared_in:.2f} s, "
              f"served in {site.served.started_in:.2f} s")
        yield site


@pytest.fixture(scope="module")
def signed_in_state(django: DjangoSite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return django.signed_in(tmp_path_factory.mktemp("django-state"))


@pytest.fixture
def signed_in(signed_in_state: Path, tmp_path: Path) -> list[str]:
    """The flags of a run whose browser is already signed in as admin (its own copy of the state:
    goalbot writes the state back at the end of a run)."""
    own = tmp_path / "state.json"
    shutil.copy(signed_in_state, own)
    return ["--storage-state", str(own)]


def _model_calls(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if e["type"] == "LLM_CALL")


def _note(goal: str, result: Any, events: list[dict[str, Any]]) -> None:
    """What the report wants of each goal (shown with -s): reached or not, and its model calls."""
    print(f"\ngoal {goal!r}: {'reached' if result.returncode == 0 else 'NOT reached'}, "
          f"{_model_calls(events)} model calls")


def _seen(model: Any) -> str:
    """The last page the navigator read: shown when a judgement fails, since which element the
    scripted model found missing there is what says why."""
    for request in reversed([r for r in model.requests if r["role"] == "navigator"]):
        for message in reversed(request["messages"]):
            content = str(message.get("content") or "")
            if message.get("role") == "user" and re.search(r"^\*?\[\d+\] ", content, re.MULTILINE):
                return f"the navigator read last:\n{content}"
    return "(the navigator read no page)"


def _book_id(django: DjangoSite, title: str) -> int:
    found = django.value("select id from library_book where title = ?", title)
    assert found is not None, f"the seed has no book {title!r}"
    return int(found)


def _save_below() -> list[dict[str, Any]]:
    """The long forms' Save buttons sit below the fold: a model reading "more below" scrolls first."""
    return [answer(call("scroll", direction="down")), answer(call("click", index=element("Save", role="button")))]


def _one_step(step: str, *navigator: dict[str, Any], said: str = "done") -> dict[str, Any]:
    return {"planner": [plan(step)],
            "navigator": [*navigator, finished(summary=said)],
            "validator": [verdict(True, said), verdict(True, said)]}


# -- signing in ----------------------------------------------------------------------------------


def test_signing_in_with_the_password_as_a_secret(django: DjangoSite, model_server, db_path: Path) -> None:
    before = django.value("select last_login from auth_user where username = 'admin'")
    model = model_server(_one_step(
        "Sign in as admin with the password PW",
        answer(call("type", index=element("Username:", role="textbox"), text="admin"),
               call("type", index=element("Password:", role="textbox"), text="<secret:PW>"),
               call("click", index=element("Log in", role="button"))),
        said="signed in: the page says Welcome, admin"))
    result, events = run_goal(db_path, model, django.admin(), "sign in to the admin as admin",
                              "--secret", f"PW={ADMIN_PASSWORD}")
    _note("sign in", result, events)
    assert result.returncode == 0, result.stderr
    after = django.value("select last_login from auth_user where username = 'admin'")
    assert after is not None and after != before, (before, after)  # Django itself saw the sign-in
    stored = rows(db_path, "select data from events")
    assert not [r for r in stored if ADMIN_PASSWORD in (r["data"] or "")]
    assert ADMIN_PASSWORD not in json.dumps(model.requests)


# -- users, permissions: the long list and its Filter ---------------------------------------------


def _permissions_of(django: DjangoSite, username: str) -> set[str]:
    return {r["codename"] for r in django.rows(
        "select p.codename from auth_user u join auth_user_user_permissions up on up.user_id = u.id "
        "join auth_permission p on p.id = up.permission_id where u.username = ?", username)}


def test_a_new_user_is_given_two_permissions_picked_through_the_filter(django: DjangoSite, model_server,
                                                                       db_path: Path, signed_in: list[str]) -> None:
    # Django's Filter box is named by its tooltip: "Type into this box to filter down the list…".
    permission_filter = element("filter down the list of available user permissions", role="textbox")
    available = element("Available user permissions", role="listbox")
    choose = element("Choose selected user permissions", role="button")
    model = model_server({
        "planner": [plan("Add the user dana with the password NEWPW",
                         "Give dana the permission 'Can add book' through the permissions filter",
                         "Give dana the permission 'Can change book' the same way, and save")],
        "navigator": [
            answer(call("type", index=element("Username:", role="textbox"), text="dana"),
                   call("type", index=element("Password:", role="textbox"), text="<secret:NEWPW>"),
                   call("type", index=element("Password confirmation:", role="textbox"), text="<secret:NEWPW>"),
                   call("click", index=element("Save", role="button"))),
            finished(summary="dana is added; her page is open"),
            answer(call("scroll", direction="down")),
            answer(call("type", index=permission_filter, text="add book")),
            answer(call("select_option", index=available, option="Library | Book | Can add book"),
                   call("click", index=choose)),
            finished(summary="'Can add book' is chosen"),
            answer(call("type", index=permission_filter, text="change book")),
            answer(call("select_option", index=available, option="Library | Book | Can change book"),
                   call("click", index=choose)),
            *_save_below(),
            finished(summary="saved with the two permissions"),
        ],
        "validator": [verdict(True, "dana's change page is open"), verdict(True, "chosen"), verdict(True, "saved"),
                      verdict(True, "saved")],
    })
    result, events = run_goal(db_path, model, django.admin("auth/user/add/"),
                              "add the user dana with the password <secret:NEWPW>, who may add and change books",
                              "--secret", "NEWPW=Dana-pw-5521", *signed_in)
    _note("user with two permissions", result, events)
    assert django.value("select count(*) from auth_user where username = 'dana'") == 1, _seen(model)
    assert _permissions_of(django, "dana") == {"add_book", "change_book"}, _seen(model)
    assert django.password_works("dana", "Dana-pw-5521")  # the secret was typed, and typed right
    assert not [r for r in rows(db_path, "select data from events") if "Dana-pw-5521" in (r["data"] or "")]
    assert result.returncode == 0, result.stderr


# -- a recipe: record with a model, rerun with none ---------------------------------------------


def _user(django: DjangoSite, username: str) -> sqlite3.Row | None:
    found = django.rows("select username, password from auth_user where username = ?", username)
    return found[0] if found else None


def test_adding_a_user_is_recorded_and_rerun_for_another_name_with_no_model(
        django: DjangoSite, model_server, db_path: Path, signed_in: list[str]) -> None:
    model = model_server(_one_step(
        "Add the user bob, who signs in without a password",
        # Choosing "Disabled" hides the password fields: the page changed, so the model looks again.
        answer(call("type", index=element("Username:", role="textbox"), text="bob"),
               call("click", index=element("Disabled", role="radio"))),
        answer(call("click", index=element("Save", role="button"))),
        said="bob is added"))
    recorded, events = run_goal(db_path, model, django.admin("auth/user/add/"), "add a user bob",
                                "--save-recipe", "django-add-user", "--var", "username=bob", *signed_in)
    _note("add a user (recording)", recorded, events)
    assert recorded.returncode == 0, recorded.stderr
    assert "saved recipe django-add-user v1" in recorded.stderr, recorded.stderr
    assert _user(django, "bob") is not None

    rerun = run_cli("--db", str(db_path), "rerun", "django-add-user", "--var", "username=carol",
                    "--no-tui", "--yes", "--base-url", DEAD_ENDPOINT, "--model", "dead", *signed_in)
    assert "Traceback" not in rerun.stderr, rerun.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    calls = rows(db_path, "select count(*) as n from events where session_id = ? and type = 'LLM_CALL'",
                 session)[0]["n"]
    print(f"\nrecipe rerun (carol): exit {rerun.returncode}, {calls} model calls")
    carol = _user(django, "carol")
    assert carol is not None, rerun.stdout + rerun.stderr
    assert django.value("select count(*) from auth_user where username in ('bob', 'carol')") == 2  # once each
    assert carol["password"].startswith("!"), "carol was added without a usable password, as bob was"
    assert calls == 0
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr


# -- books: the autocomplete, the long list, the search, the calendar, the tag Filter ----------------


def test_a_book_is_added_with_its_author_chosen_through_the_autocomplete(
        django: DjangoSite, model_server, db_path: Path, signed_in: list[str]) -> None:
    model = model_server(_one_step(
        "Add the book '흰' by 한강",
        answer(call("type", index=element("Title:", role="textbox"), text="흰"),
               call("click", index=element("Author:", role="combobox"))),
        # select2's search box opens focused, and nameless: a model types into the focused element.
        answer(call("type", text="한강")),
        answer(call("click", index=element("한강", role="option"))),
        *_save_below(),
        said="the book 흰 was added"))
    result, events = run_goal(db_path, model, django.admin("library/book/add/"), "add the book '흰' by 한강",
                              *signed_in)
    _note("book with autocomplete author", result, events)
    added = django.rows("select a.name from library_book b join library_author a on a.id = b.author_id "
                        "where b.title = '흰'")
    assert [r["name"] for r in added] == ["한강"], _seen(model)
    assert result.returncode == 0, result.stderr


def test_a_country_far_down_the_long_list_is_chosen(django: DjangoSite, model_server, db_path: Path,
                                                    signed_in: list[str]) -> None:
    book = _book_id(django, "The Sympathizer")
    model = model_server(_one_step(
        "Set the book's country to Vietnam and save",
        answer(call("select_option", index=element("Country:", role="combobox"), option="Vietnam")),
        *_save_below(),
        said="The Sympathizer's country is Vietnam"))
    result, events = run_goal(db_path, model, django.admin(f"library/book/{book}/change/"),
                              "The Sympathizer is a Vietnamese book: set its country to Vietnam", *signed_in)
    _note("country far down the list", result, events)
    assert django.value("select country from library_book where id = ?", book) == "VN", _seen(model)
    assert result.returncode == 0, result.stderr


def test_the_changelist_is_searched_and_the_book_found_is_dated_today(
        django: DjangoSite, model_server, db_path: Path, signed_in: list[str]) -> None:
    book = _book_id(django, "살인자의 기억법")
    model = model_server(_one_step(
        "Search the books for 살인자, open the book found, set its publication date to today and save",
        answer(call("type", index=element("Search", role="textbox"), text="살인자", submit=True)),
        answer(call("click", index=element("살인자의 기억법", role="link"))),
        answer(call("click", index=element("Today", role="link"))),
        *_save_below(),
        said="the date is set"))
    result, events = run_goal(db_path, model, django.admin("library/book/"),
                              "find the book 살인자… and set its publication date to today", *signed_in)
    _note("search, open, today", result, events)
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()  # the site's TIME_ZONE is UTC
    assert django.value("select published from library_book where id = ?", book) == today, _seen(model)
    assert result.returncode == 0, result.stderr


def test_the_changelist_is_narrowed_by_its_country_filter_and_the_book_renamed(
        django: DjangoSite, model_server, db_path: Path, signed_in: list[str]) -> None:
    book = _book_id(django, "Invisible Cities")
    model = model_server(_one_step(
        "Filter the book list by country Italy, open the book shown and rename it to 'Le città invisibili'",
        answer(call("click", index=element("Italy", role="link"))),
        answer(call("click", index=element("Invisible Cities", role="link"))),
        answer(call("type", index=element("Title:", role="textbox"), text="Le città invisibili")),
        *_save_below(),
        said="renamed"))
    result, events = run_goal(db_path, model, django.admin("library/book/"),
                              "our only Italian book should carry its Italian title, 'Le città invisibili'",
                              *signed_in)
    _note("list filter, rename", result, events)
    assert django.value("select title from library_book where id = ?", book) == "Le città invisibili", _seen(model)
    assert result.returncode == 0, result.stderr


def test_a_date_is_picked_in_the_calendar(django: DjangoSite, model_server, db_path: Path,
                                          signed_in: list[str]) -> None:
    book = _book_id(django, "여행의 이유")
    model = model_server(_one_step(
        "Open the publication date's calendar, pick the 3rd of April 2019 and save",
        answer(call("click", index=element("Choose a Date", role="link"))),
        answer(call("click", index=element("3", role="link"))),
        *_save_below(),
        said="the date is 2019-04-03"))
    result, events = run_goal(db_path, model, django.admin(f"library/book/{book}/change/"),
                              "여행의 이유 came out on 3 April 2019, not the 17th: fix its date", *signed_in)
    _note("calendar", result, events)
    assert django.value("select published from library_book where id = ?", book) == "2019-04-03", _seen(model)
    assert result.returncode == 0, result.stderr


def test_a_book_gets_a_tag_picked_through_the_tag_filter_in_korean(django: DjangoSite, model_server,
                                                                   db_path: Path, signed_in: list[str]) -> None:
    book = _book_id(django, "소년이 온다")
    model = model_server(_one_step(
        "태그 필터에 '여행'을 입력하고, 골라서 추가한 뒤 저장",
        answer(call("type", index=element("filter down the list of available tags", role="textbox"),
                    text="여행")),
        answer(call("select_option", index=element("Available tags", role="listbox"), option="여행"),
               call("click", index=element("Choose selected tags", role="button"))),
        *_save_below(),
        said="'여행' 태그가 추가되었습니다"))
    result, events = run_goal(db_path, model, django.admin(f"library/book/{book}/change/"),
                              "'소년이 온다'에 '여행' 태그를 추가해줘", *signed_in)
    _note("tag through the filter (Korean)", result, events)
    tags = {r["name"] for r in django.rows("select t.name from library_book_tags bt join library_tag t "
                                           "on t.id = bt.tag_id where bt.book_id = ?", book)}
    assert tags == {"소설", "역사", "여행"}, _seen(model)
    assert result.returncode == 0, result.stderr


# -- authors: a Korean goal ---------------------------------------------------------------------


def test_a_korean_goal_adds_an_author(django: DjangoSite, model_server, db_path: Path,
                                      signed_in: list[str]) -> None:
    model = model_server(_one_step(
        "이름에 '김민수'를 입력하고 저장",
        answer(call("type", index=element("Name:", role="textbox"), text="김민수"),
               call("click", index=element("Save", role="button"))),
        said="저자 '김민수'가 추가되었습니다"))
    result, events = run_goal(db_path, model, django.admin("library/author/add/"), "새 저자 '김민수'를 추가해줘",
                              *signed_in)
    _note("새 저자 '김민수'", result, events)
    assert django.value("select count(*) from library_author where name = '김민수'") == 1, _seen(model)
    assert result.returncode == 0, result.stderr


# -- deleting: risky, through the confirmation page -------------------------------------------------


def _deletion_script() -> dict[str, Any]:
    return _one_step(
        "Delete this book, confirming on the confirmation page",
        answer(call("scroll", direction="down")),
        answer(call("click", index=element("Delete", role="link"))),
        answer(call("click", index=element("Yes, I’m sure", role="button"))),
        said="the book is deleted")


def _deletions(django: DjangoSite, book: int) -> int:
    """Django's own log of deletions of this book (action_flag 3 is DELETION)."""
    return int(django.value("select count(*) from django_admin_log where action_flag = 3 and object_id = ? "
                            "and content_type_id = (select id from django_content_type where app_label = "
                            "'library' and model = 'book')", str(book)))


def test_deleting_a_book_waits_for_a_go_and_happens_once_with_it(django: DjangoSite, model_server,
                                                                 tmp_path: Path, signed_in: list[str]) -> None:
    book = _book_id(django, "엄마를 부탁해")
    page, goal = django.admin(f"library/book/{book}/change/"), "delete the book 엄마를 부탁해"

    refused_db = tmp_path / "refused.db"
    result, events = run_goal(refused_db, model_server(_deletion_script()), page, goal, "--max-failures", "1",
                              *signed_in)
    _note("delete without --allow-risky", result, events)
    assert result.returncode == 1, result.stderr
    asked = [e for e in events if e["type"] == "APPROVAL_REQUEST"]
    assert asked and events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO"), \
        [e["type"] for e in events]
    assert django.value("select count(*) from library_book where id = ?", book) == 1
    assert _deletions(django, book) == 0

    allowed_db = tmp_path / "allowed.db"
    result, events = run_goal(allowed_db, model_server(_deletion_script()), page, goal, "--allow-risky",
                              *signed_in)
    _note("delete with --allow-risky", result, events)
    assert django.value("select count(*) from library_book where id = ?", book) == 0
    assert _deletions(django, book) == 1
    assert result.returncode == 0, result.stderr

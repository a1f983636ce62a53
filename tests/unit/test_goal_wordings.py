"""Goals in other words, English and Korean, find their recipes — and never the wrong one. The
corpus (tests/fixtures/goal_wordings.json) was written by someone who had not read the matcher:
synonyms, inflections, split verbs, typos, politeness, Korean particles and endings, quantities and
articles around values, and goals that must find nothing (the opposite act, another object, more
than the recipe does, two values for one)."""

from __future__ import annotations

import pytest

from goalbot.recipes.finding import GoalMatch, match
from wordings import judged, tally


def test_no_wording_finds_the_wrong_recipe_or_binds_a_wrong_value() -> None:
    wrong = [f"{row.goal} → {row.said}" for row in judged() if row.outcome == "wrong"]
    assert wrong == []


def test_most_wordings_in_each_language_find_their_recipe() -> None:
    by = tally(judged())
    for language in ("en", "ko"):
        counts = by[language]
        meant = counts["found"] + counts["unsure"] + counts["missed"]
        assert counts["found"] >= 0.75 * meant, (language, dict(counts))


CART = "add the {{PRODUCT}} to the cart"


@pytest.mark.parametrize("goal, value", [
    ("장바구니에 Tea Towel 담아줘", "Tea Towel"),
    ("Tea Towel을 장바구니에 넣어 주세요", "Tea Towel"),  # the particle is not the value's
    ("김치찌개 재료를 장바구니에 담아줘", "김치찌개 재료"),
    ("사과를 장바구니에 추가해줘", "사과"),  # "과" ends the word, it is no particle
    ("티 타월 1개를 장바구니에 담아 주실래요?", "티 타월"),
    ("add 1 Tea Towel to the cart", "Tea Towel"),
    ("add a single Tea Towel to my basket", "Tea Towel"),
    ("I need a Tea Towel in my cart", "Tea Towel"),
    ("add the March 2024 Calendar to the cart", "March 2024 Calendar"),  # a number of its own
])
def test_a_value_is_cut_out_as_the_person_wrote_it(goal: str, value: str) -> None:
    assert match(goal, CART) == GoalMatch(sure=True, values={"PRODUCT": value})


@pytest.mark.parametrize("goal", [
    "logged in and turned on dark mode", "sign in and turn the dark mode on", "log in, then enable dark mode",
    "sing in and trun on dark mode", "sign in, dark mode on please", "로그인하고 다크 모드 켜줘",
    "로그인한 다음 다크모드 켜 주세요", "로그인하고 다크 모드 on 해줘",
])
def test_the_same_acts_in_other_words_inflections_and_slips(goal: str) -> None:
    assert match(goal, "sign in and turn on dark mode") == GoalMatch(sure=True)


@pytest.mark.parametrize("goal, template", [
    ("다크 모드 꺼줘", "sign in and turn on dark mode"),
    ("don't turn on dark mode, just sign in", "sign in and turn on dark mode"),
    ("empty my cart", CART),
    ("장바구니 비워줘", CART),  # a verb the lexicon does not know is still another act
    ("장바구니에서 티 타월 뺴줘", CART),
    ("Tea Towel 장바구니에서 빼줘", CART),
])
def test_another_act_in_any_language_is_no_match(goal: str, template: str) -> None:
    assert match(goal, template) is None


def test_two_things_where_one_is_wanted_is_never_sure() -> None:
    for goal in ("장바구니에 티 타월이랑 구리 주전자 담아줘", "add the Tea Towel and the Copper Kettle to the cart"):
        fitted = match(goal, CART)
        assert fitted is not None and not fitted.sure


def test_a_value_after_the_recipe_s_own_word_is_taken_whole() -> None:
    assert match("search for how to turn off email notifications", "search for {{QUERY}}") == GoalMatch(
        sure=True, values={"QUERY": "how to turn off email notifications"})
    more = match("create a ticket titled Login broken and assign it to me", "create a ticket titled {{SUMMARY}}")
    assert more is None or not more.sure  # it asks for more than the recipe does
    assert match("'결제 오류' 제목으로 티켓 만들어줘", "create a ticket titled {{SUMMARY}}") == GoalMatch(
        sure=True, values={"SUMMARY": "결제 오류"})

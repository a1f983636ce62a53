"""A value given with --var becomes a placeholder only where it stands as a whole word or number:
a recorded address whose port happens to hold the value must still open on a rerun."""

from __future__ import annotations

from goalbot.recipes.variables import fill, template


def test_a_value_inside_a_longer_number_or_word_is_left_alone() -> None:
    recorded = template("http://127.0.0.1:42155/seats.html?max=55 under $55, seat A55", {"MAX": "55"})
    assert recorded == "http://127.0.0.1:42155/seats.html?max={{MAX}} under ${{MAX}}, seat A55"
    assert fill(recorded, {"MAX": "60"}) == "http://127.0.0.1:42155/seats.html?max=60 under $60, seat A55"


def test_every_form_of_a_value_is_still_found_where_it_stands() -> None:
    recorded = template("/recipes/kimchi-stew/ — Kimchi Stew (Kimchi+Stew)", {"DISH": "Kimchi Stew"})
    assert recorded == "/recipes/{{DISH|slug}}/ — {{DISH}} ({{DISH|form}})"


def test_a_korean_value_is_found_with_the_particle_written_onto_it_and_not_inside_another_name() -> None:
    values = {"name": "민지", "city": "서울"}
    assert template("민지님의 여행을 서울에서 저장했어요", values) == "{{name}}님의 여행을 {{city}}에서 저장했어요"
    assert template("민지훈 님, 서울특별시", values) == "민지훈 님, 서울특별시"
    assert fill(template("민지님의 여행", values), {"name": "최유나"}) == "최유나님의 여행"

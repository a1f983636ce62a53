"""Choice policies (seed 002 §5.4) choose by the person's rules, the same way every time, and say
why: every candidate's row has the rule that dropped it or its score. A policy file is hostile
input: a bad one is refused in one line that names the field."""

from __future__ import annotations

import json

import pytest

from goalbot.agents.choosing import NoCandidate, PolicyError, choose, read_policies

SEATS = [
    {"label": "A1", "price": 62, "row": 1, "available": True},
    {"label": "B4", "price": "48.00", "row": 2, "available": True},
    {"label": "A7", "price": 45, "row": 1, "available": False},
    {"label": "A3", "price": 49, "row": 1, "available": True},
    {"label": "A2", "price": 49, "row": 1, "available": True},
]
FRONT_UNDER = {"front": {
    "hard": [{"field": "available", "op": "==", "value": True},
             {"field": "price", "op": "<=", "value": "{{vars.MAX}}"}],
    "score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": 10}],
    "tie_break": ["price_asc", "label_asc"], "pick": "argmax"}}


def test_the_cheapest_front_row_seat_under_the_limit_and_the_table_that_says_why() -> None:
    policy = read_policies(json.dumps(FRONT_UNDER))["front"]
    choice = choose("front", policy, SEATS, {"MAX": "50"})
    assert choice.chosen is not None and choice.chosen["label"] == "A2"
    assert choice.tie_break == "label_asc"  # A3 and A2 cost the same: the label settled it
    dropped = {row.candidate["label"]: row.dropped_by for row in choice.table}
    assert dropped == {"A1": "price > 50", "B4": None, "A7": "available != true", "A3": None, "A2": None}
    assert {row.candidate["label"]: row.score for row in choice.table if row.score is not None} == \
        {"B4": 0, "A3": 10, "A2": 10}


def test_other_vars_and_other_data_choose_by_the_same_rules() -> None:
    policy = read_policies(json.dumps(FRONT_UNDER))["front"]
    assert choose("front", policy, SEATS, {"MAX": "70"}).chosen["label"] == "A2"  # type: ignore[index]
    sold_out = [dict(seat, available=seat["row"] != 1) for seat in SEATS]
    assert choose("front", policy, sold_out, {"MAX": "50"}).chosen["label"] == "B4"  # type: ignore[index]


def test_no_candidate_left_is_its_own_outcome_with_the_table_never_a_silent_pick() -> None:
    policy = read_policies(json.dumps(FRONT_UNDER))["front"]
    with pytest.raises(NoCandidate) as caught:
        choose("front", policy, SEATS, {"MAX": "10"})
    assert all(row.dropped_by for row in caught.value.choice.table) and caught.value.choice.chosen is None


def test_a_missing_var_is_named() -> None:
    policy = read_policies(json.dumps(FRONT_UNDER))["front"]
    with pytest.raises(PolicyError, match=r"needs --var MAX=…"):
        choose("front", policy, SEATS, {})


def test_every_operator_on_paths_lists_and_words() -> None:
    kettles = [{"name": "Steel kettle", "tags": ["steel", "1.7l"], "rating": {"stars": 4.5}, "stock": 3},
               {"name": "Glass kettle", "tags": ["glass"], "rating": {"stars": 4.8}},
               {"name": "Copper teapot", "tags": ["copper"], "rating": {"stars": 4.9}, "stock": 0}]
    policies = read_policies(json.dumps({"best": {
        "hard": [{"field": "stock", "op": "exists"}, {"field": "stock", "op": ">", "value": 0},
                 {"field": "name", "op": "matches", "value": "(?i)kettle$"},
                 {"field": "tags", "op": "contains", "value": "steel"},
                 {"field": "name", "op": "not_in", "value": ["Old kettle"]}],
        "tie_break": ["rating.stars_desc"]}}))
    assert choose("best", policies["best"], kettles, {}).chosen["name"] == "Steel kettle"  # type: ignore[index]


@pytest.mark.parametrize(("text", "said"), [
    ('{"p": {"hard": [{"field": "price", "op": "like", "value": 1}]}}', "p.hard.0.op: unknown operator 'like'"),
    ('{"p": {"hard": [{"op": "==", "value": 1}]}}', "p.hard.0.field: is missing"),
    ('{"p": {"score": [{"when": {"field": "row", "op": "==", "value": 1}, "add": "ten"}]}}', "p.score.0.add"),
    ('{"p": {"pick": "best"}}', "p.pick"),
    ('{"p": {"tie_break": ["price"]}}', "'price' is not FIELD_asc or FIELD_desc"),
    ('{"p": {"hard": [], "eval": "import os"}}', "p.eval: is not a part of a policy"),
    ('{"p": {"hard": [{"field": "x", "op": "in", "value": 3}]}}', "`in` needs a list"),
    ('{"p": {"hard": [{"field": "x", "op": "matches", "value": "^(a+)\\\\1+$"}]}}', "RE2"),
    ('{"p": {"hard": [{"field": "x", "op": "==", "value": {"$ne": 1}}]}}', "p.hard.0.value"),
    ('{"p": {"hard": [{"field": "__class__.x", "op": "==", "value": NaN}]}}', "NaN is not a number"),
    ('["p"]', "holds list, not an object"),
    ('{"p": ' * 100_000 + "}" * 100_000, "over 200 kB"),
])
def test_a_bad_policy_is_refused_in_one_line_naming_the_field(text: str, said: str) -> None:
    with pytest.raises(PolicyError) as caught:
        read_policies(text)
    assert said in str(caught.value) and "\n" not in str(caught.value), str(caught.value)

"""A `<secret:NAME>` reference in the quotes or brackets a person puts round it is a reference,
never a secret written in the clear; a real value in the same quotes is still caught."""

from __future__ import annotations

import pytest

from goalbot.agents.choosing import read_policies, choose
from goalbot.service.secret_in_goal import secret_cue


@pytest.mark.parametrize("goal", [
    'log in with password "<secret:PW>"', "log in with password '<secret:PW>'", "password `<secret:PW>`",
    "password [<secret:PW>]", "password (<secret:PW>)", "password “<secret:PW>” and click Save",
    "password «<secret:PW>»", 'passphrase "<secret:PP>"', 'token "<secret:T>" then save', '비밀번호 "<secret:PW>"',
])
def test_a_quoted_or_bracketed_reference_is_no_secret(goal: str) -> None:
    assert secret_cue(goal) is None


@pytest.mark.parametrize("goal", [
    'log in with password "hunter2"', "password 'Tulip-93'", 'pin "<secret:P>" and token "x9Y-long"',
    'password "<secret:PW>" and pin "4711"', "pin <secret:P> token 'abc1'",
])
def test_a_real_value_next_to_or_in_quotes_is_still_caught(goal: str) -> None:
    assert secret_cue(goal) is not None


def test_a_dropped_candidate_is_said_by_what_is_true_of_it() -> None:
    policy = read_policies('{"lamp": {"hard": [{"field": "name", "op": "contains", "value": "Lamp"},'
                           ' {"field": "price", "op": "<=", "value": 40}, {"field": "tag", "op": "exists"}]}}')["lamp"]
    candidates = [{"name": "Oak Desk", "price": 9, "tag": 1}, {"name": "Floor Lamp", "price": 58, "tag": 1},
                  {"name": "Odd Lamp", "price": "n/a", "tag": 1}, {"name": "Bare Lamp", "price": 9},
                  {"name": "Desk Lamp", "price": 24, "tag": 1}]
    why = {row.candidate["name"]: row.dropped_by for row in choose("lamp", policy, candidates, {}).table}
    assert why == {"Oak Desk": 'name does not contain "Lamp"', "Floor Lamp": "price > 40",
                   "Odd Lamp": 'price "n/a" cannot be compared with 40', "Bare Lamp": "tag is missing",
                   "Desk Lamp": None}

"""What counts as a secret written into a goal: the spellings people use, in English and Korean,
and keys by their format — and the goals that only talk about passwords, which must still run."""

from __future__ import annotations

import pytest

from goalbot.service.secret_in_goal import secret_cue

SECRET_GOALS = {
    "password: X": ("sign in with password: hunter2", "hunter2"),
    "the password X": ("sign in with the password hunter2 and turn on dark mode", "hunter2"),
    "my passphrase is X": ("my passphrase is correct-horse-battery, unlock the vault", "correct-horse-battery"),
    "pwd=X": ("log in with pwd=s3cr3t", "s3cr3t"),
    "user / X as credentials": ("log in as bob / Tr0ub4dor (those are the credentials)", "Tr0ub4dor"),
    "an sk-live key": ("call the API key sk-live-4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    "a GitHub token": ("push with ghp_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c838347Ae178B4a"),
    "an AWS key": ("upload with AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    "a JWT": ("send eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
    "비밀번호 X": ("비밀번호 hunter2로 로그인해줘", "hunter2"),
    "비밀번호는 X": ("비밀번호는 qwerty12 입니다", "qwerty12"),
    "the login secret word X": ("enter the login secret word tulip at the door", "tulip"),
    "a PIN": ("pay with pin 4921", "4921"),
    "token=X": ("use token=abc123def to sign in", "abc123def"),
}
PLAIN_GOALS = [
    "open settings and turn on dark mode",
    "change the password in the account settings",
    "reset my password and tell me when the email arrives",
    "the password field is broken: report it",
    "pin the tab and go to https://shop.example.com/a/b?q=1",
    "log in with <secret:PW> as alice",
    "put the kimchi-stew ingredients in the cart",
    "비밀번호 변경 페이지를 열어줘",
    "my password is expired, open the reset page",
    "compare prices of 3 kits under $40 / month",
    "a token of thanks: send the card to Ann",
]


@pytest.mark.parametrize(("goal", "value"), SECRET_GOALS.values(), ids=SECRET_GOALS.keys())
def test_a_secret_written_in_a_goal_is_caught_and_never_repeated(goal: str, value: str) -> None:
    cue = secret_cue(goal)
    assert cue is not None, goal
    assert value not in cue


@pytest.mark.parametrize("goal", PLAIN_GOALS)
def test_a_goal_that_only_talks_about_secrets_is_not_refused(goal: str) -> None:
    assert secret_cue(goal) is None, secret_cue(goal)

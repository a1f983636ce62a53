"""A goal finds its recipe by words alone: the same acts, every other word of the recipe's goal,
and one value per variable cut out of the goal as the person wrote it."""

from __future__ import annotations

import pytest

from goalbot.recipes.finding import GoalMatch, match

TEMPLATE = "add the {{PRODUCT}} to the cart"


@pytest.mark.parametrize("goal, value", [
    ("add the Oak Desk to the cart", "Oak Desk"),
    ("put the Walnut Shelf in my cart", "Walnut Shelf"),
    ("Place a Walnut Shelf into the basket please", "Walnut Shelf"),
    ("add Blue Kettle (2 l) to cart", "Blue Kettle (2 l)"),
    ("put the Green Mug in my cart at http://127.0.0.1:8765/catalogue.html", "Green Mug"),
    ('add "The Hobbit" to the cart', "The Hobbit"),
])
def test_the_same_act_in_other_words_binds_the_value_as_written(goal: str, value: str) -> None:
    assert match(goal, TEMPLATE) == GoalMatch(sure=True, values={"PRODUCT": value})


@pytest.mark.parametrize("goal", ["remove the Oak Desk from the cart", "buy the Oak Desk",
                                  "delete the Walnut Shelf from my basket"])
def test_a_goal_of_another_act_is_no_match(goal: str) -> None:
    assert match(goal, TEMPLATE) is None


def test_what_does_not_fit_surely_says_why() -> None:
    two = match("add the Oak Desk and the Walnut Shelf to the cart", TEMPLATE)
    assert two is not None and not two.sure and "Oak Desk; Walnut Shelf" in two.why
    elsewhere = match("add the Oak Desk to the wishlist", TEMPLATE)
    assert elsewhere is not None and not elsewhere.sure and "does not say cart" in elsewhere.why


def test_a_goal_with_no_variable_matches_its_rewordings_only() -> None:
    recorded = "sign in and turn on dark mode"
    assert match("log in and enable the dark mode", recorded) == GoalMatch(sure=True)
    assert match("sign in and turn off dark mode", recorded) is None
    more = match("sign in and turn on dark mode for bob", recorded)
    assert more is not None and not more.sure  # it says more than the recipe does

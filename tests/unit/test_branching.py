"""A patch that found another way to do a step is kept beside the recorded way: its condition is
looked for where the two ways part (after the actions they share), a heal the same way again keeps
no second copy, and a condition is an element of a role and name that is on the page, once or on
every row."""

from __future__ import annotations

from goalbot.operators.base import Element, Observation
from goalbot.recipes.branching import branched
from goalbot.recipes.locate import present
from goalbot.recipes.model import Evidence, Recipe, RecipeAction, RecipeStep


def _click(role: str, name: str, css: str = "") -> RecipeAction:
    return RecipeAction(action={"name": "click"}, target=Evidence(role=role, name=name, css=css))


def _recipe(*actions: RecipeAction) -> Recipe:
    return Recipe(name="invoices", goal="download the invoice", start_url="http://x.test/",
                  steps=[RecipeStep(description="download it", actions=list(actions))])


RECORDED = _recipe(_click("link", "Invoices"), _click("link", "Download", "table > tr:nth-of-type(1) a"))
CARDS = _recipe(_click("link", "Invoices"), _click("button", "Show card"), _click("link", "Download", "div.card a"))


def test_a_new_way_is_looked_for_where_it_parts_from_the_recorded_one() -> None:
    version = branched(RECORDED, CARDS, {1})
    step = version.steps[0]
    assert [a.target.name for a in step.actions if a.target] == ["Invoices", "Download"]
    (way,) = step.branches
    assert way.after == 1  # both ways open the invoices first
    assert way.when.element is not None and way.when.element.name == "Show card"
    assert [a.target.name for a in way.actions if a.target] == ["Show card", "Download"]


def test_healing_the_same_way_again_keeps_no_second_copy() -> None:
    once = branched(RECORDED, CARDS, {1})
    again = CARDS.model_copy(deep=True)
    # The card's link sits at another place on another day: the same way all the same.
    again.steps[0].actions[2].target.css = "div.card:nth-of-type(3) a"  # type: ignore[union-attr]
    twice = branched(once, again, {1})
    assert len(twice.steps[0].branches) == 1


def test_a_condition_holds_on_a_page_that_shows_the_element_on_every_row() -> None:
    rows = Observation(url="http://x.test/", title="Invoices",
                       items=[Element(index=n, role="button", name="Show card") for n in range(1, 4)])
    assert present(Evidence(role="button", name="Show card"), rows)
    assert not present(Evidence(role="button", name="Hide card"), rows)
    assert not present(Evidence(role="checkbox", name="Show card"), rows)

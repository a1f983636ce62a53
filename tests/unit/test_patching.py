"""A model's patch to a recipe, applied: each op names the recipe's steps as they were before the
patch, inserted actions take their evidence from the page as it is, a patch that names what is not
there is refused, and one that would send the recipe to a new site is found out."""

from __future__ import annotations

from typing import Any

import pytest

from goalbot.llm.tools import PatchAnswer
from goalbot.operators.base import Element, Observation
from goalbot.recipes.model import Evidence, Recipe, RecipeAction, RecipeStep
from goalbot.recipes.patching import PatchError, apply, new_hosts


class Page:
    """What a patch asks a page besides its observation: an element's evidence, as the browser reads it."""

    async def evidence(self, index: int) -> dict[str, Any]:
        return {"test_id": f"el-{index}", "css": f"#el-{index}"}


SEEN = Observation(url="http://shop.test/checkout", title="Checkout",
                   items=[Element(index=4, role="button", name="Accept cookies"),
                          Element(index=9, role="button", name="Place order")])


def _recipe() -> Recipe:
    def click(name: str) -> RecipeAction:
        return RecipeAction(action={"name": "click"}, target=Evidence(role="button", name=name))

    return Recipe(name="buy", goal="buy one kit", start_url="http://shop.test/",
                  steps=[RecipeStep(description="add it", actions=[click("Add to cart")]),
                         RecipeStep(description="pay", actions=[click("Checkout"), click("Pay")])])


def _names(recipe: Recipe) -> list[str]:
    return [action.target.name if action.target else action.action.name for action in recipe.actions]


async def test_ops_name_the_steps_as_they_were_before_the_patch() -> None:
    recipe = _recipe()
    patch = PatchAnswer(ops=[
        {"op": "insert_actions", "before_step": 2, "actions": [{"name": "click", "index": 4}]},
        {"op": "replace_target", "step": 3, "index": 9},  # "Pay", though an insert came before it
        {"op": "remove_step", "step": 1},
    ], reason="a cookie banner, and Pay is now Place order")
    said = await apply(recipe, patch, SEEN, Page())
    assert _names(recipe) == ["Accept cookies", "Checkout", "Place order"] and len(said) == 3
    inserted = recipe.actions[0]
    assert inserted.target is not None and inserted.target.test_id == "el-4"
    assert inserted.fingerprint.url_contains == "/checkout" and "index" not in inserted.action.args()


async def test_a_patch_that_names_what_is_not_there_is_refused() -> None:
    with pytest.raises(PatchError, match="no step 7"):
        await apply(_recipe(), PatchAnswer(ops=[{"op": "remove_step", "step": 7}]), SEEN, Page())
    with pytest.raises(PatchError, match=r"no element \[42\]"):
        await apply(_recipe(), PatchAnswer(ops=[{"op": "replace_target", "step": 1, "index": 42}]), SEEN, Page())


async def test_an_expectation_is_updated_as_the_patch_says() -> None:
    recipe = _recipe()
    await apply(recipe, PatchAnswer(ops=[{"op": "update_expect", "step": 3, "expect": {"url_contains": "/paid"}}]),
                SEEN, Page())
    assert recipe.actions[2].expect.url_contains == "/paid"


def test_a_patch_that_would_go_to_a_new_site_is_found_out() -> None:
    elsewhere = PatchAnswer(ops=[{"op": "insert_actions", "before_step": 1,
                                  "actions": [{"name": "navigate", "url": "https://evil.test/login"}]}])
    assert new_hosts(_recipe(), elsewhere) == ["evil.test"]
    same_site = PatchAnswer(ops=[{"op": "insert_actions", "before_step": 1,
                                  "actions": [{"name": "navigate", "url": "http://shop.test/cart"}]}])
    assert new_hosts(_recipe(), same_site) == []

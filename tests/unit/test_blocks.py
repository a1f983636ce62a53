"""Blocks in a real store: a step that runs another recipe follows that recipe's latest version
unless pinned, a loop of blocks is refused, and a rerun asks for every variable and secret its
blocks need."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalbot.recipes.model import Block, Evidence, Recipe, RecipeAction, RecipeStep
from goalbot.service.blocks import BlockError, blocks_of, make_block, needs
from storage import recipes
from storage.db import connect


def _step(description: str, text: str) -> RecipeStep:
    return RecipeStep(description=description, actions=[RecipeAction(action={"name": "type", "text": text})])


def _shop(name: str = "order") -> Recipe:
    return Recipe(name=name, goal="sign in and order {{ITEM}}", start_url="http://shop.test/login",
                  steps=[_step("Sign in", "<secret:PW>"), _step("Say who", "{{USER}}"), _step("Order", "{{ITEM}}")],
                  variables=["ITEM", "USER"], secrets=["PW"])


def test_a_block_follows_its_latest_version_unless_pinned(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    recipes.save(db, _shop())
    caller, login = make_block(db, "order", 1, 2, "login", None, pin=False)
    assert (caller.version, login.version) == (2, 1)
    assert [step.block for step in caller.steps] == [Block(recipe="login"), None]
    assert login.secrets == ["PW"] and login.variables == ["USER"] and login.start_url == "http://shop.test/login"
    assert [blocks_of(db, caller)["login@latest"].version] == [1]

    recipes.save(db, login.model_copy(update={"goal": "sign in, the new way"}))
    assert blocks_of(db, caller)["login@latest"].version == 2
    other = recipes.save(db, _shop("reorder"))
    pinned, _ = make_block(db, "reorder", 1, 2, None, "login", pin=True)
    assert pinned.steps[0].block == Block(recipe="login", version=2)
    recipes.save(db, login.model_copy(update={"goal": "sign in, a third way"}))
    assert blocks_of(db, pinned)["login@2"].goal == "sign in, the new way"
    assert blocks_of(db, caller)["login@latest"].version == 3
    assert other.version == 1


def test_a_rerun_needs_its_blocks_variables_and_secrets_unless_the_step_binds_them(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    login = recipes.save(db, Recipe(name="login", goal="sign in", start_url="http://shop.test/login",
                                    steps=[_step("Sign in", "{{EMAIL}} <secret:PW>")], variables=["EMAIL"],
                                    secrets=["PW"]))
    caller = Recipe(name="order", goal="order", start_url="http://shop.test/",
                    steps=[RecipeStep(description="sign in", block=Block(recipe="login")), _step("Order", "{{ITEM}}")],
                    variables=["ITEM"])
    assert needs(caller, blocks_of(db, caller)) == (["ITEM", "EMAIL"], ["PW"])
    bound = caller.model_copy(update={"steps": [RecipeStep(description="sign in", block=Block(
        recipe="login", values={"EMAIL": "shop@example.com"})), caller.steps[1]]})
    assert needs(bound, blocks_of(db, bound)) == (["ITEM"], ["PW"])
    assert login.version == 1


def test_blocks_that_run_in_a_circle_or_are_missing_are_refused(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    recipes.save(db, Recipe(name="a", goal="a", start_url="http://x.test/",
                            steps=[RecipeStep(description="b", block=Block(recipe="b"))]))
    recipes.save(db, Recipe(name="b", goal="b", start_url="http://x.test/",
                            steps=[RecipeStep(description="a", block=Block(recipe="a"))]))
    a = recipes.load(db, "a")
    assert a is not None
    with pytest.raises(BlockError, match="recipe a runs itself: a → b → a"):
        blocks_of(db, a)
    lone = Recipe(name="c", goal="c", start_url="http://x.test/",
                  steps=[RecipeStep(description="z", block=Block(recipe="z", version=3))])
    with pytest.raises(BlockError, match="runs block z v3, which is not in this store"):
        blocks_of(db, lone)
    with pytest.raises(ValueError, match="a step that runs a block has no actions"):
        RecipeStep(description="both", block=Block(recipe="z"), actions=_step("x", "y").actions)
    with pytest.raises(ValueError, match="should match pattern"):
        Block(recipe="../etc")


def test_a_block_keeps_the_variables_its_names_hold_and_a_bad_name_is_one_line(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    linked = RecipeAction(action={"name": "click"}, target=Evidence(role="link", name="{{PRODUCT}}"))
    recipes.save(db, Recipe(name="cart", goal="add {{PRODUCT}}", start_url="http://shop.test/", variables=["PRODUCT"],
                            steps=[RecipeStep(description="Open it", actions=[linked]), _step("Pay", "<secret:PW>")],
                            secrets=["PW"]))
    _, block = make_block(db, "cart", 1, 1, "open", None, pin=False)
    assert block.variables == ["PRODUCT"] and block.secrets == []  # the link is named by the value
    with pytest.raises(BlockError, match="--as ../x: Value error, bad recipe name"):
        make_block(db, "cart", 2, 2, "../x", None, pin=False)

"""A recipe written as a Playwright script: valid Python whatever the recipe holds (ways, blocks,
optional actions, a loop it cannot carry, text that tries to break out of a string or a comment),
with a GO comment where goalbot would have asked and the person's secrets never in it."""

from __future__ import annotations

import ast

from goalbot.recipes.model import Block, Branch, Evidence, Expect, Loop, Recipe, RecipeAction, RecipeStep, When
from goalbot.recipes.scripting import ScriptWriter


def _click(name: str, **evidence: str) -> RecipeAction:
    return RecipeAction(action={"name": "click"}, target=Evidence(role="button", name=name, **evidence))


def test_every_kind_of_step_is_written_as_python_that_compiles() -> None:
    hostile = 'Save """\n\\" + __import__("os").system("id") + "'
    login = Recipe(name="login", goal="sign in", start_url="http://x.test/", secrets=["PW"], variables=["USER"],
                   steps=[RecipeStep(description="Sign in", actions=[
                       RecipeAction(action={"name": "type", "text": "{{USER}}"}, target=Evidence(role="textbox", name="User")),
                       RecipeAction(action={"name": "type", "text": "<secret:PW>"},
                                    target=Evidence(role="textbox", name="Password", id="pw"))])])
    recipe = Recipe(name="shop", goal="buy the {{ITEM}}", start_url="http://x.test/{{ITEM|slug}}", variables=["ITEM"],
                    steps=[RecipeStep(description="sign in", block=Block(recipe="login", values={"USER": "ann"})),
                           RecipeStep(description="Accept", actions=[RecipeAction(
                               action={"name": "click"}, optional=True,
                               target=Evidence(role="button", name="Accept all", overlay="cookie banner"))]),
                           RecipeStep(description="Open the cart", actions=[_click("Cart")], branches=[Branch(
                               when=When(element=Evidence(role="button", name="Menu")), actions=[_click("Menu")])]),
                           RecipeStep(description=hostile, actions=[
                               _click(hostile, css="#a > b"),
                               RecipeAction(action={"name": "click"}, target=Evidence(role="button", name="Buy now"),
                                            expect=Expect(text_appeared=["Thanks for {{ITEM}}"], url_contains="/done"))]),
                           RecipeStep(description="each", for_each=Loop(over="orders", actions=[_click("Invoice")]))])
    text = ScriptWriter(recipe, {"login@latest": login}).script("shop.py")
    tree = ast.parse(text)  # compiles: the hostile text stayed inside its strings and comments
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert {"find", "present", "block_login", "says", "on_path", "fill"} <= calls
    assert 'block_login(page, {"USER": fill("ann", values)}, secrets)' in text
    assert 'secrets["PW"]' in text and "SECRETS = [\"PW\"]" in text and 'VARIABLES = ["ITEM"]' in text
    assert "# GO: goalbot asks before this (payment); this script does it without asking" in text
    assert text.count("# GO:") == 1
    assert "if present(page, [(\"role\", fill(\"button\\nMenu\", values))]) is not None:  # way 2" in text
    assert "element = present(page, " in text and "only when it came" in text
    assert "goes through a list an extract read: run goalbot rerun shop" in text
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "system"]


def test_a_blocks_variable_left_to_the_rerun_is_a_flag_of_the_script() -> None:
    login = Recipe(name="login", goal="sign in", start_url="http://x.test/", variables=["EMAIL"],
                   steps=[RecipeStep(description="Sign in", actions=[RecipeAction(
                       action={"name": "type", "text": "{{EMAIL}}"}, target=Evidence(role="textbox", name="Email"))])])
    recipe = Recipe(name="shop", goal="sign in", start_url="http://x.test/",
                    steps=[RecipeStep(description="sign in", block=Block(recipe="login"))])
    text = ScriptWriter(recipe, {"login@latest": login}).script("shop.py")
    ast.parse(text)
    assert 'VARIABLES = ["EMAIL"]' in text and "--EMAIL …" in text
    assert 'block_login(page, {"EMAIL": values["EMAIL"]}, secrets)' in text

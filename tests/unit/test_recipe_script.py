"""A recipe written as a Playwright script: valid Python whatever the recipe holds (ways, blocks,
optional actions, a loop it cannot carry, text that tries to break out of a string or a comment),
with a GO comment where goalbot would have asked and the person's secrets never in it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

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
    assert "block_login(page, {'USER': fill('ann', values)}, secrets)" in text
    assert "secrets['PW']" in text and "SECRETS = ['PW']" in text and "VARIABLES = ['ITEM']" in text
    assert "# GO: goalbot asks before this (payment); this script does it without asking" in text
    assert text.count("# GO:") == 1
    assert "if present(page, [('role', fill('button\\nMenu', values))]) is not None:  # way 2" in text
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
    assert "VARIABLES = ['EMAIL']" in text and "--EMAIL …" in text
    assert "block_login(page, {'EMAIL': values['EMAIL']}, secrets)" in text


# -- a recipe file someone hands you: what it carries never runs ---------------------------------

BREAKOUTS = ['"""\nimport pathlib; pathlib.Path("PWNED").touch()\n"""', "'''; __import__('pathlib').Path('PWNED').touch(); '''",
             '\\"); __import__("pathlib").Path("PWNED").touch(); ("', "x\x00y", "line\u2028break", "surrogate \ud800 here",
             '{{ITEM}}" + __import__("pathlib").Path("PWNED").touch() + "', 'ends with a quote"']


def _hostile_recipe(text: str) -> Recipe:
    login = Recipe(name="login", goal=text, start_url="http://x.test/", secrets=["PW"], variables=["USER"],
                   steps=[RecipeStep(description=text, actions=[RecipeAction(
                       action={"name": "type", "text": "{{USER}}" + text}, target=Evidence(role="textbox", name=text))])])
    return Recipe(
        name="shop", goal=text, start_url="http://x.test/" + text, variables=["ITEM", "url", "help"], secrets=["PW"],
        steps=[RecipeStep(description=text, block=Block(recipe="login", values={"USER": text})),
               RecipeStep(description=text, actions=[
                   RecipeAction(action={"name": "click"}, target=Evidence(role="button", name=text, id=text, css=text,
                                                                          xpath=text, label=text, test_id=text),
                                expect=Expect(text_appeared=[text], url_contains=text)),
                   RecipeAction(action={"name": "click", "x": "nan", "y": "inf"}),
                   RecipeAction(action={"name": "scroll", "direction": "down", "amount": "1e3"}),
                   RecipeAction(action={"name": "wait", "seconds": "-inf"}),
                   RecipeAction(action={"name": "type", "text": text + "<secret:PW>"},
                                target=Evidence(role="textbox", name="Password"))])])


@pytest.mark.parametrize("text", BREAKOUTS, ids=range(len(BREAKOUTS)))
def test_an_exported_recipe_runs_nothing_it_carries_even_on_help(tmp_path: Path, text: str) -> None:
    recipe = _hostile_recipe(text)
    login = _hostile_recipe(text).model_copy(update={"name": "login", "variables": ["USER"]})
    script = ScriptWriter(recipe, {"login@latest": login}).script('x"""y.py')
    ast.parse(script)
    path = tmp_path / "exported.py"
    path.write_text(script, encoding="utf-8")  # a surrogate would not even be written
    helped = subprocess.run([sys.executable, str(path), "--help"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert helped.returncode == 0, helped.stderr
    assert "--ITEM" in helped.stdout and "--var-url" in helped.stdout and "--var-help" in helped.stdout
    assert not (tmp_path / "PWNED").exists()
    assert "nan" not in script.replace("'", "") or "mouse.click(0.0, 0.0)" in script
    assert "mouse.wheel(0, 1000)" in script and "wait_for_timeout(1000)" in script


@pytest.mark.parametrize("field, names", [("variables", ['x"""\nimport os\n"""']), ("variables", ["my-var"]),
                                          ("secrets", ["PW; rm -rf ~"]), ("variables", ["1st"])])
def test_a_recipe_names_its_variables_and_secrets_from_a_safe_alphabet_only(field: str, names: list[str]) -> None:
    with pytest.raises(ValidationError, match=f"bad {field[:-1]} name"):
        Recipe(name="r", goal="g", start_url="http://x.test/", steps=[], **{field: names})
    with pytest.raises(ValidationError, match="bad variable name"):
        Block(recipe="login", values={'USER"] + __import__("os") + ["': "ann"})

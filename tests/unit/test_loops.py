"""Loops made from a recording in a real store: the steps must have acted on a list an earlier
extract kept, in passes that repeat; what the first record said becomes {{each_FIELD}}."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalbot.recipes.model import Evidence, Recipe, RecipeAction, RecipeStep, Recorded
from goalbot.service.loops import LoopError, make_loop
from storage import recipes
from storage.db import connect


def _click(role: str, name: str) -> RecipeAction:
    return RecipeAction(action={"name": "click"}, target=Evidence(role=role, name=name))


def _recipe(*clicks: RecipeAction, extract: bool = True) -> Recipe:
    read = RecipeAction(action={"name": "extract", "key": "orders", "instruction": "the orders"},
                        reads=Recorded(instruction="the orders", schema={"type": "object"},
                                       place={"fields": {"orders": {"each": "tr", "fields": {}}}}))
    first = RecipeStep(description="Read the orders", actions=[read] if extract else [_click("link", "Orders")])
    return Recipe(name="orders", goal="invoices", start_url="http://shop.test/orders",
                  steps=[first, RecipeStep(description="Download each", actions=list(clicks))])


def test_passes_are_cut_by_each_and_must_repeat(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    recipes.save(db, _recipe(_click("button", "Invoice 1"), _click("link", "Receipt 1"),
                             _click("button", "Invoice 2"), _click("link", "Receipt 2")))
    made = make_loop(db, "orders", "orders", 2, 2, each=2)
    loop = made.steps[1].for_each
    assert made.version == 2 and loop is not None and [a.words() for a in loop.actions] == [
        'click button "Invoice 1"', 'click link "Receipt 1"']  # no recorded records: nothing to template
    recipes.save(db, _recipe(_click("button", "Invoice 1"), _click("link", "Receipt 1")))
    with pytest.raises(LoopError, match='the passes differ: click button "Invoice 1" then click link'):
        make_loop(db, "orders", "orders", 2, 2, each=1)
    with pytest.raises(LoopError, match="hold 2 actions: not passes of 3"):
        make_loop(db, "orders", "orders", 2, 2, each=3)


def test_a_loop_needs_a_list_read_before_it(tmp_path: Path) -> None:
    db = connect(tmp_path / "goalbot.db")
    recipes.save(db, _recipe(_click("button", "Invoice 1"), extract=False))
    with pytest.raises(LoopError, match="no step before step 2 extracts 'orders'"):
        make_loop(db, "orders", "orders", 2, 2, each=None)
    with pytest.raises(LoopError, match="--steps 2-3 is not among them"):
        make_loop(db, "orders", "orders", 2, 3, each=None)
    recipes.save(db, _recipe(_click("button", "Invoice 1")))
    with pytest.raises(LoopError, match="--over orders.a b: String should match pattern"):
        make_loop(db, "orders", "orders.a b", 2, 2, each=None)

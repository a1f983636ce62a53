"""The demo of everything, with no key: the bundled shop and its scripted model answer each goal the
guide tries on them — a choice by a policy (kept as a recipe with a variable, rerun with another),
the products as data fitting a schema, and the same as an MCP `run_goal` with `output_schema`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from kit import REPO, rows, run_cli

PRODUCTS_SCHEMA = {"type": "object", "required": ["products"], "properties": {"products": {
    "type": "array", "items": {"type": "object", "required": ["name", "price", "in_stock"], "properties": {
        "name": {"type": "string"}, "price": {"type": "number"}, "in_stock": {"type": "boolean"}}}}}}


def _served() -> dict[str, object]:
    from goalbot.demo.shop import CATALOGUE

    return {"products": [{"name": p.name, "price": p.price, "in_stock": p.in_stock} for p in CATALOGUE]}


@pytest.fixture
def demo_model():
    from goalbot.scripted.server import Script, ScriptedModelServer

    with ScriptedModelServer(Script.demo()) as model:
        yield model


def test_goalbot_demo_shop_chooses_by_its_policy_and_the_cart_has_it(db_path: Path) -> None:
    shown = run_cli("--db", str(db_path), "demo", "shop", "--no-tui", "--yes", timeout=300)
    assert shown.returncode == 0, shown.stderr
    assert "in the cart: reading-lamp" in shown.stdout  # the dearest lamp in stock within 40, by the site's record
    chosen = json.loads(rows(db_path, "select data from events where type = 'CHOSEN'")[0]["data"])
    assert chosen["policy"] == "priciest_lamp" and chosen["chosen"]["name"] == "Reading Lamp"


def test_the_shop_goal_kept_with_a_variable_reruns_with_another_and_no_model(site, demo_model, db_path: Path) -> None:
    flags = ["--base-url", demo_model.base_url, "--model", "scripted-demo", "--no-tui", "--yes"]
    recorded = run_cli("--db", str(db_path), "run", "put the most expensive lamp under 40 in the cart",
                       "--url", f"{site.url}/shop", "--var", "MAX=40", "--save-recipe", "lamp", *flags)
    assert recorded.returncode == 0, recorded.stderr
    asked = len(demo_model.requests)
    rerun = run_cli("--db", str(db_path), "rerun", "lamp", "--var", "MAX=60", "--no-tui", "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert len(demo_model.requests) == asked  # no model call
    assert site.state.snapshot().get("cart") == ["reading-lamp", "floor-lamp"]  # 40 → Reading Lamp, 60 → Floor Lamp
    [made] = json.loads(rerun.stdout)["chosen"]  # what was chosen, by which rules, and what was clicked
    assert made["policy"] == "priciest_lamp" and made["chosen"]["name"] == "Floor Lamp"
    assert "price <= 60" in made["rules"] and "{{" not in made["rules"], made["rules"]
    assert made["clicked"] is not None, made
    table = json.loads(rows(db_path, "select data from events where type = 'CHOSEN' order by rowid desc")[0]["data"])
    assert "price <= 60" in table["rules"]


def test_the_products_as_data_fit_the_schema(site, demo_model, db_path: Path, tmp_path: Path) -> None:
    schema = tmp_path / "products.schema.json"
    schema.write_text(json.dumps(PRODUCTS_SCHEMA))
    done = run_cli("--db", str(db_path), "run", "list the products with their prices", "--url", f"{site.url}/shop",
                   "--base-url", demo_model.base_url, "--model", "scripted-demo", "--no-tui", "--yes",
                   "--output-schema", str(schema), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["valid"] and result["result"] == _served()


async def test_an_mcp_host_gets_the_products_as_data(site, demo_model, db_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    flags = ["-m", "goalbot", "--db", str(db_path), "mcp", "--base-url", demo_model.base_url, "--model",
             "scripted-demo", "--approve-plans"]
    server = StdioServerParameters(command=sys.executable, args=flags, env=dict(os.environ), cwd=str(REPO))
    async with Client(server) as client:
        done = await client.call_tool("run_goal", {"goal": "list the products with their prices",
                                                   "url": f"{site.url}/shop", "output_schema": PRODUCTS_SCHEMA,
                                                   "wait": True})
    assert not done.is_error, done.content
    assert done.structured_content["status"] == "ok" and done.structured_content["result"] == _served()

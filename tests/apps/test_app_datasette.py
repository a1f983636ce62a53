"""Datasette 0.65.5, browsed as its users browse it: a filter built in its filter form, a facet's
count, a sort by price, the filtered rows exported as a CSV file, and a reading kept as a recipe.
Every answer is judged against the SQLite file Datasette serves, read with sqlite3; the scripted
model reads each value off the page it was sent, so a run on the wrong page answers wrongly."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from apps_kit import read_off_page
from datasette_app import TABLE, Datasette, served_datasette
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict

pytestmark = pytest.mark.xdist_group("app-datasette")

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model
COUNT = {"type": "object", "required": ["count"], "additionalProperties": False,
         "properties": {"count": {"type": "integer", "minimum": 0}}}
PRODUCT = {"type": "object", "required": ["name", "price"], "additionalProperties": False,
           "properties": {"name": {"type": "string"}, "price": {"type": "number"}}}


@pytest.fixture(scope="module")
def datasette(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Datasette]:
    with served_datasette(tmp_path_factory.mktemp("datasette")) as served:
        print(f"\nDatasette started in {served.started_in:.2f} s")
        yield served


def schema_file(tmp_path: Path, schema: dict[str, Any]) -> Path:
    path = tmp_path / "answer.schema.json"
    path.write_text(json.dumps(schema))
    return path


def model_calls(db_path: Path, session: str | None = None) -> int:
    if session is None:
        return len(rows(db_path, "select 1 from events where type = 'LLM_CALL'"))
    return len(rows(db_path, "select 1 from events where type = 'LLM_CALL' and session_id = ?", session))


def said(result: Any, events: list[dict[str, Any]]) -> str:
    return f"{result.stderr[-3000:]}\n{[e['type'] for e in events][-30:]}"


def reading(step: str, *actions: dict[str, Any], data: dict[str, Any] | None = None) -> dict[str, Any]:
    """One step of actions (an answer each, as a model answers each new page), then `finished`;
    the extractor's answer, when the goal asks for data, is read off the page it is sent."""
    script: dict[str, Any] = {"planner": [plan(step)],
                              "navigator": [answer(a) for a in actions] + [finished(summary="done")],
                              "validator": [verdict(True, "done")] * 2}
    if data is not None:
        script["extractor"] = [answer(call("extracted", data=data))]
    return script


def answered(result: Any) -> Any:
    printed = json.loads(result.stdout)
    assert printed["valid"], printed
    return printed["result"]


def test_a_filter_built_in_the_form_counts_the_rows_of_one_category(datasette: Datasette, model_server,
                                                                    db_path: Path, tmp_path: Path) -> None:
    model = model_server(reading(
        "Filter the products to category = 음료 and read how many rows there are",
        call("select_option", index=element("- column -", role="combobox"), option="category"),
        call("type", index=element("_filter_value", role="textbox"), text="음료"),
        call("click", index=element("Apply", role="button")),
        data={"count": read_off_page(r"(\d+) rows where category", "integer")}))
    result, events = run_goal(db_path, model, datasette.table_url, "how many products are in the category 음료?",
                              "--output-schema", str(schema_file(tmp_path, COUNT)), "--json")
    assert result.returncode == 0, said(result, events)
    assert answered(result) == {"count": datasette.count("음료")}
    print(f"filter: reached, {model_calls(db_path)} model calls")


def test_a_facet_gives_a_categorys_count(datasette: Datasette, model_server, db_path: Path, tmp_path: Path) -> None:
    model = model_server(reading(
        "Open the 과자 facet and read its count",
        call("click", index=element("과자", role="link")),
        data={"count": read_off_page(r"(\d+) rows where category = \"과자\"", "integer")}))
    result, events = run_goal(db_path, model, datasette.table_url, "과자 카테고리에 상품이 몇 개 있나요?",
                              "--output-schema", str(schema_file(tmp_path, COUNT)), "--json")
    assert result.returncode == 0, said(result, events)
    assert answered(result) == {"count": datasette.count("과자")}
    print(f"facet: reached, {model_calls(db_path)} model calls")


def test_sorting_by_price_finds_the_cheapest_product_with_its_price_as_a_number(
        datasette: Datasette, model_server, db_path: Path, tmp_path: Path) -> None:
    [cheapest] = datasette.query(f"select name, price from {TABLE} order by price limit 1")
    model = model_server(reading(
        "Sort the table by price, cheapest first, and read the first row",
        call("click", index=element("price", role="link")),
        # The first row under the header that says the table is sorted by price (▼).
        data={"name": read_off_page(r"price\s*▼\s*\tstock\s*\n\d+\t([^\t]+)\t"),
              "price": read_off_page(r"price\s*▼\s*\tstock\s*\n\d+\t[^\t]+\t[^\t]+\t(\d+)", "number")}))
    result, events = run_goal(db_path, model, datasette.table_url, "가장 싼 상품과 그 가격은?",
                              "--output-schema", str(schema_file(tmp_path, PRODUCT)), "--json")
    assert result.returncode == 0, said(result, events)
    found = answered(result)
    assert found == {"name": cheapest["name"], "price": cheapest["price"]}
    assert isinstance(found["price"], (int, float))
    print(f"sort: reached, {model_calls(db_path)} model calls")


def test_the_filtered_rows_download_as_a_csv_file(datasette: Datasette, model_server, db_path: Path) -> None:
    model = model_server(reading(
        "Open the 채소 facet, then export its rows as a CSV file",
        call("click", index=element("채소", role="link")),
        call("click", index=element("advanced", role="link")),
        call("click", index=element("download file", role="checkbox")),
        call("click", index=element("Export CSV", role="button"))))
    result, events = run_goal(db_path, model, datasette.table_url, "download the vegetables (채소) as a CSV file")
    assert result.returncode == 0, said(result, events)
    [stored] = rows(db_path, "select name, content from artifacts where kind = 'download'")
    got = list(csv.DictReader(io.StringIO(stored["content"].decode("utf-8-sig"))))
    expected = datasette.query(f"select id, name, category, price, stock from {TABLE} where category = '채소' "
                               "order by id")
    assert [(int(r["id"]), r["name"], r["category"], int(r["price"])) for r in got] == \
        [(r["id"], r["name"], r["category"], r["price"]) for r in expected]
    print(f"csv: reached, {model_calls(db_path)} model calls")


def test_a_facet_count_kept_as_a_recipe_reads_another_category_with_no_model(
        datasette: Datasette, model_server, db_path: Path, tmp_path: Path) -> None:
    schema = schema_file(tmp_path, COUNT)
    model = model_server(reading(
        "Open the 과자 facet and read its count",
        call("click", index=element("과자", role="link")),
        data={"count": read_off_page(r"(\d+) rows where category = \"과자\"", "integer")}))
    result, events = run_goal(db_path, model, datasette.table_url, "how many products are in the category 과자?",
                              "--output-schema", str(schema), "--json",
                              "--save-recipe", "facet-count", "--var", "category=과자")
    assert result.returncode == 0, said(result, events)
    assert answered(result) == {"count": datasette.count("과자")}
    assert "saved recipe facet-count v1" in result.stderr, result.stderr[-3000:]
    rerun = run_cli("--db", str(db_path), "rerun", "facet-count", "--var", "category=음료", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT, "--model", "dead", "--json", timeout=180)
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert answered(rerun) == {"count": datasette.count("음료")}
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    assert model_calls(db_path, session) == 0
    print(f"recipe: recorded in {model_calls(db_path)} model calls, rerun with 0")


LISTING = {"type": "object", "required": ["products"], "additionalProperties": False, "properties": {
    "products": {"type": "array", "items": {
        "type": "object", "required": ["name", "price"], "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "price": {"type": "integer"}}}}}}


def test_a_reading_with_no_action_becomes_a_recipe_that_reads_the_next_days_prices_with_no_model(
        datasette: Datasette, model_server, db_path: Path, tmp_path: Path) -> None:
    """The commonest recipe there is: open a report, read it, every morning. The run does nothing
    but read (--output-schema); tomorrow's rerun reads the changed prices with no model."""
    page = f"{datasette.table_url}?category=과자&_sort=id"

    def listed() -> dict[str, Any]:
        return {"products": [{"name": row["name"], "price": row["price"]} for row in datasette.query(
            f"select name, price from {TABLE} where category = ? order by id", "과자")]}

    model = model_server({"planner": [plan("Read the 과자 products and their prices")],
                          "navigator": [finished(summary="the table shows them")],
                          "validator": [verdict(True, "read")] * 2,
                          "extractor": [answer(call("extracted", data=listed()))]})
    result, events = run_goal(db_path, model, page, "과자 상품과 가격을 읽어줘",
                              "--output-schema", str(schema_file(tmp_path, LISTING)), "--json",
                              "--save-recipe", "snack-prices")
    assert result.returncode == 0, said(result, events)
    assert "saved recipe snack-prices v1" in result.stderr, result.stderr[-3000:]
    conn = sqlite3.connect(datasette.db)
    try:  # the next morning: every snack's price moved
        conn.execute(f"update {TABLE} set price = price + 300 where category = ?", ("과자",))
        conn.commit()
    finally:
        conn.close()
    rerun = run_cli("--db", str(db_path), "rerun", "snack-prices", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT, "--model", "dead", "--json", timeout=180)
    assert "Traceback" not in rerun.stderr, rerun.stderr
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert answered(rerun) == listed()
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    assert model_calls(db_path, session) == 0

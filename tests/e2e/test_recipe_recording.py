"""What is recorded is what was done: models (and the demo's script) end a step by batching
`finished` after its last action, and that action is kept once, so the recipe reruns as it ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows_kit import cart_script
from kit import answer, call, element, plan, rows, run_cli, run_goal, verdict
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: the rerun must not need a model


def test_an_answer_ending_with_finished_records_its_action_once_and_reruns_with_no_model(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    model = model_server({
        "planner": [plan("Sign in as alice", "Turn on dark mode and save")],
        "navigator": [
            answer(call("type", index=element("User"), text="alice")),
            answer(call("type", index=element("Password"), text="<secret:PW>")),
            answer(call("click", index=element("Sign in")), call("finished", success=True, summary="signed in")),
            answer(call("click", index=element("Dark mode")), call("click", index=element("Save")),
                   call("finished", success=True, summary="saved")),
            answer(call("click", index=element("Save")), call("finished", success=True, summary="saved")),
        ],
        "validator": [verdict(True, "signed in"), verdict(True, "dark mode on and saved")],
    })
    result, _ = run_goal(db_path, model, hardsite.page("darkmode"), "sign in and turn on dark mode",
                         "--save-recipe", "darkmode", "--secret", "PW=hunter2")
    assert result.returncode == 0, result.stderr
    done = [r["data"] for r in rows(db_path, "select data from events where type = 'ACT_OK'")]
    acted = [json.loads(d)["action"]["name"] for d in done if json.loads(d)["action"]["name"] != "finished"]
    shown = run_cli("--db", str(db_path), "recipe", "show", "darkmode").stdout
    assert shown.count('click button "Sign in"') == 1 and shown.count('click button "Save"') == 1, shown
    assert shown.count("   [") == len(acted), (acted, shown)  # one recorded action per action done
    hardsite.reset()
    again = run_cli("--db", str(db_path), "rerun", "darkmode", "--secret", "PW=s3cret", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    assert rows(db_path, "select model_calls from sessions where id = ?", session)[0]["model_calls"] == 0
    assert hardsite.reached("/api/settings", "POST") == ['{"user":"alice","dark":true}']


@pytest.mark.parametrize("product", ["Blue Kettle", "Copper Teapot"])
def test_a_variable_reaches_every_place_its_value_did_and_reruns_with_another_value(
        hardsite: HardSite, model_server, db_path: Path, product: str) -> None:
    """The value is typed, names the link, is the next address as a slug and is announced."""
    result, _ = run_goal(db_path, model_server(cart_script()), hardsite.page("store"), "put Blue Kettle in the cart",
                         "--save-recipe", "cart", "--var", "PRODUCT=Blue Kettle")
    assert result.returncode == 0, result.stderr
    shown = run_cli("--db", str(db_path), "recipe", "show", "cart").stdout
    assert 'click link "{{PRODUCT}}"' in shown and "/product/{{PRODUCT|slug}}" in shown, shown
    assert "page says '{{PRODUCT}} added to your cart'" in shown and "Blue" not in shown.split("\n", 1)[1], shown
    hardsite.reset()
    again = run_cli("--db", str(db_path), "rerun", "cart", "--var", f"PRODUCT={product}", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    assert rows(db_path, "select model_calls from sessions where id = ?", session)[0]["model_calls"] == 0
    assert hardsite.reached("/api/cart", "POST") == [json.dumps({"item": product}, separators=(",", ":"))]


def test_a_value_picks_its_own_product_not_a_look_alike_listed_before_it(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    """Recorded on the first search result; rerun with a value whose look-alike (its lid) is the
    first result now. The link, the address and the announcement must each be the value's own."""
    result, _ = run_goal(db_path, model_server(cart_script()), hardsite.page("catalogue"),
                         "put Blue Kettle in the cart", "--save-recipe", "cart", "--var", "PRODUCT=Blue Kettle")
    assert result.returncode == 0, result.stderr
    hardsite.reset()
    again = run_cli("--db", str(db_path), "rerun", "cart", "--var", "PRODUCT=Copper Teapot", "--no-tui", "--yes",
                    "--base-url", DEAD_ENDPOINT)
    assert again.returncode == 0, again.stderr
    assert hardsite.reached("/api/cart", "POST") == ['{"item":"Copper Teapot"}']

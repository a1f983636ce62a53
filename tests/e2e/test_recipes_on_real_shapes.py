"""Recipes recorded on the shapes real applications have (issue 68), rerun with no model (a dead
endpoint) and judged by what the site then holds:

- an admin's create form sends the browser on to the new object's page, `/things/<new id>/change/`,
  and says "The thing #<new id> “bob” was added": the id is the run's own, so the rerun, which makes
  another, expects any number there; the rest of the address, and the person's value in the
  announcement, are still checked.
- a data browser writes the count it was asked for twice, in its heading and in a facet sorted
  by count: the recipe keeps the heading, and a rerun on other data reads today's count.
"""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

from hardsite.server import HardSite
from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun that asks a model fails
COUNT_SCHEMA = {"type": "object", "required": ["rows"], "additionalProperties": False,
                "properties": {"rows": {"type": "integer", "minimum": 0}}}


def _name(prefix: str) -> str:
    # The site keeps what every test made (a database does): each test makes names of its own.
    return prefix + "-" + "".join(random.choices(string.ascii_lowercase, k=6))


def _rerun(db_path: Path, recipe: str, *variables: str) -> tuple[Any, list[dict[str, Any]]]:
    flags = [part for pair in variables for part in ("--var", pair)]
    result = run_cli("--db", str(db_path), "rerun", recipe, *flags, "--no-tui", "--yes",
                     "--base-url", DEAD_ENDPOINT, "--model", "dead")
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], **json.loads(r["data"] or "{}"))
              for r in rows(db_path, "select type, data from events where session_id = ? order by seq", session)]
    assert not [e for e in events if e["type"] in ("LLM_CALL", "LLM_ERROR")], "the rerun asked a model"
    return result, events


def _record_a_new_thing(hardsite: HardSite, model_server: Any, db_path: Path, name: str) -> None:
    model = model_server({
        "planner": [plan("Add a thing with the name", "Give the new thing its note and save it")],
        "navigator": [
            answer(call("type", index=element("Name", role="textbox"), text=name)),
            answer(call("click", index=element("Save"))),
            finished(summary="added"),
            answer(call("type", index=element("Note", role="textbox"), text="from goalbot")),
            answer(call("click", index=element("Save"))),
            finished(summary="noted"),
        ],
        "validator": [verdict(True, "the thing was added"), verdict(True, "the note was saved")],
    })
    result, _ = run_goal(db_path, model, f"{hardsite.url}/things/add/", f"add a thing named {name} with a note",
                         "--save-recipe", "add-thing", "--var", f"name={name}")
    assert result.returncode == 0, result.stderr
    assert "saved recipe add-thing v1" in result.stderr, result.stderr


def test_a_recipe_that_creates_an_object_reruns_and_creates_the_next_one(
        hardsite: HardSite, model_server: Any, db_path: Path) -> None:
    first, second = _name("bob"), _name("carol")
    _record_a_new_thing(hardsite, model_server, db_path, first)
    recorded = hardsite.things.named(first)
    assert recorded is not None and recorded.note == "from goalbot"
    shown = run_cli("--db", str(db_path), "recipe", "show", "add-thing").stdout
    assert "address has /things/*/change/" in shown, shown
    assert "page says 'The thing #* “{{name}}” was added successfully." in shown, shown
    assert f"/things/{recorded.id}/" not in shown, shown
    result, events = _rerun(db_path, "add-thing", f"name={second}")
    assert result.returncode == 0, result.stdout + result.stderr
    made = hardsite.things.named(second)
    assert made is not None and made.id > recorded.id and made.note == "from goalbot"
    assert hardsite.reached(f"/things/{made.id}/change/", "POST") == ["note=from+goalbot&_save=Save"]
    assert events[-1]["type"] == "TASK_OK", events[-1]
    # The script a person owns expects the same: any id where the run made one, the name as given.
    script = db_path.parent / "add_thing.py"
    exported = run_cli("--db", str(db_path), "recipe", "export", "add-thing", str(script), "--as", "playwright")
    assert exported.returncode == 0, exported.stderr
    third = _name("frank")
    ran = subprocess.run([sys.executable, str(script), f"--name={third}"], text=True, capture_output=True,
                         timeout=120, stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": str(db_path.parent)})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    scripted = hardsite.things.named(third)
    assert scripted is not None and scripted.id > made.id and scripted.note == "from goalbot"


def test_the_rest_of_the_address_and_the_persons_value_are_still_checked(
        hardsite: HardSite, model_server: Any, db_path: Path) -> None:
    first = _name("dave")
    _record_a_new_thing(hardsite, model_server, db_path, first)
    # The name is taken: the site answers with the form again, at /things/add/, and makes nothing.
    result, events = _rerun(db_path, "add-thing", f"name={first}")
    assert result.returncode == 1
    failed = next(e for e in events if e["type"] == "ACT_FAIL")
    assert failed["error"] == "ExpectationFailed" and "expects /things/*/change/" in failed["message"], failed
    assert not hardsite.reached(f"/things/{hardsite.things.next_id}/change/")
    # A new object made, but the site's announcement names another: the person's value is not a wildcard.
    other = _name("erin")
    hardsite.things.misnamed = "someone else"
    result, events = _rerun(db_path, "add-thing", f"name={other}")
    assert result.returncode == 1
    failed = next(e for e in events if e["type"] == "ACT_FAIL")
    assert failed["error"] == "ExpectationFailed" and f"“{other}” was added" in failed["message"], failed
    made = hardsite.things.named(other)
    assert made is not None and made.note == ""  # stopped before its second step


def test_a_count_shown_in_a_facet_and_a_heading_is_read_again_on_other_data(
        hardsite: HardSite, model_server: Any, db_path: Path) -> None:
    hardsite.reset()  # the site's cities as they are to start with
    spain = sum(1 for _, country in hardsite.things.cities if country == "Spain")
    model = model_server({
        "planner": [plan("Read how many rows the table has")],
        "navigator": [answer(call("extract", instruction="how many rows match the filter", key="count",
                                  schema=COUNT_SCHEMA)),
                      finished(summary="counted")],
        "extractor": [answer(call("extracted", data={"rows": spain}))],
        "validator": [verdict(True, "the rows were counted")],
    })
    result, events = run_goal(db_path, model, f"{hardsite.url}/data/cities?country=Spain",
                              "count the cities of Spain", "--save-recipe", "cities", "--var", "country=Spain")
    assert result.returncode == 0, result.stderr
    read = next(e for e in events if e["type"] == "EXTRACTED")
    assert read["read_by"] == "model" and read["data"] == {"rows": spain}
    assert read["place"] == {"fields": {"rows": {"at": "body > section:nth-of-type(1) > h3:nth-of-type(1)",
                                                 "as": "number"}}}, read["place"]
    # Other data: more cities in France, so France's facet is first now and Spain's second.
    hardsite.things.cities += [("Nice", "France"), ("Lille", "France"), ("Nantes", "France")]
    france = sum(1 for _, country in hardsite.things.cities if country == "France")
    assert france > spain
    result, events = _rerun(db_path, "cities", "country=France")
    assert result.returncode == 0, result.stdout + result.stderr
    reread = next(e for e in events if e["type"] == "EXTRACTED")
    assert reread["read_by"] == "places" and reread["valid"] and reread["data"] == {"rows": france}, reread

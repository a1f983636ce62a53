"""Whole runs on long lists and drawn dropdowns, the scripted model reading the look as a model
would: it takes an option only once the look shows it in the list (by role and name), after
scrolling the list there; and MiniWoB++'s form-sequence-3, whose dropdown is drawn over a hidden
select, is done and rewarded by the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import answer, call, element, finished, plan, run_goal, verdict
from goalbot.eval.miniwob_site import MiniwobSite
from hardsite.server import HardSite

# What the look calls the option far down the permission list, as a model copies it from there.
SHOWN = "Sites Framework…| site alias | Can view site alias"


def test_an_option_far_down_a_long_list_is_scrolled_to_chosen_and_saved(
        hardsite: HardSite, model_server: Any, db_path: Path) -> None:
    hardsite.reset()
    step = "Let the group see site aliases, then save"
    script = {
        "planner": [plan(step)],
        "navigator": [
            # Only once the list shows it: before, no listbox line holds the option's words.
            {"when": "Can view site alias", **answer(call(
                "select_option", index=element("Can view site alias", role="listbox"), option=SHOWN))},
            {"when": "Can view site alias ✓", **answer(call("click", index=element("Save", role="button")),
                                                       call("finished", success=True, summary="saved"))},
            {"keep": True, **answer(call("scroll", index=element("Permissions", role="listbox"), direction="down"))},
        ],
        "validator": [verdict(True, "the group may view site aliases, saved")],
    }
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("long-listbox"), step, "--max-steps", "20")
    assert result.returncode == 0, result.stderr
    assert events[-1]["type"] == "TASK_OK", [e["type"] for e in events]
    scrolls = [e for e in events if e["type"] == "ACT_START" and e.get("action", {}).get("name") == "scroll"]
    assert 2 <= len(scrolls) <= 8, len(scrolls)  # paged down to it, a view at a time
    assert [json.loads(body) for body in hardsite.reached("/api/permissions", "POST")] == [["sites.view_sitealias"]]


HEIGHTS = ["5ft 9in", "5ft 10in", "5ft 11in", "6 ft", "6ft 1in", "6ft 2in"]
BUTTONS = ["Yes", "No", "Maybe"]


def _as_sent(words: str) -> str:
    """`words` as a `when` finds them: the scripted server matches the request's messages as JSON."""
    return json.dumps(words, ensure_ascii=False)[1:-1]


def _miniwob_script() -> dict[str, Any]:
    """Rules a model reading form-sequence-3 follows: the height the page asks for is chosen in
    the dropdown that lists it, then, once the dropdown shows it chosen, the button is pressed."""
    press = [{"when": [f"Choose {height} from", _as_sent(f'value="{height}"'), _as_sent(f'labeled "{button}"')],
              "keep": True,
              **answer(call("click", index=element(button, role="button")),
                       call("finished", success=True, summary=f"chose {height}, pressed {button}"))}
             for height in HEIGHTS for button in BUTTONS]
    choose = [{"when": f"Choose {height} from", "keep": True,
               **answer(call("select_option", index=element(height, role="combobox"), option=height))}
              for height in HEIGHTS]
    return {"planner": [{"keep": True, **plan("Choose the height and press the button the page names")}],
            "navigator": press + choose,
            "validator": [{"keep": True, **verdict(True, "chosen and pressed")}]}


@pytest.mark.parametrize("seed", [0, 1])
def test_miniwob_form_sequence_3_its_drawn_dropdown_chosen_as_a_select(
        model_server: Any, db_path: Path, seed: int) -> None:
    with MiniwobSite() as site:
        episode = f"form-sequence-3-{seed}"
        result, events = run_goal(db_path, model_server(_miniwob_script()), site.page("form-sequence-3", seed, episode),
                                  "Do what the page asks", "--max-steps", "6")
        assert result.returncode == 0, result.stderr
        reward = site.reward(episode)
    assert reward is not None and reward.raw == 1.0, (reward, [e["type"] for e in events])

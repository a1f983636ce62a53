"""The harness's scores before and after a `goalbot tune` round, for whatever endpoint it is
pointed at.

    python bench/tune.py                                   # the scripted model (see below)
    python bench/tune.py --base-url URL --model M [--reflection-model R] [--api-key K] [--budget 80]

The bank is written here: eight patch tasks (a rerun's click failed because the site renamed the
element: Save → Store changes, Profile → Your account …, and the page as it is now), six plans
(a goal, the first page, the controls the plan that worked went through) and six choices (a goal
such as "the cheapest seat in row 1", the candidates, the one the approved policy chose). Without
--base-url the scripted model serves both the task and the reflection model, on 127.0.0.1: it
guesses until the instructions carry the rule its reflection writes, then answers right — so its
figures show the machinery (DSPy, GEPA, the harness, the budget) working end to end, not a model's
quality. Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402

RULE = "NAME-MATCH rule"
RENAMED = [("button", "Save", "Store changes"), ("link", "Profile", "Your account"), ("button", "Log in", "Sign in"),
           ("link", "Cart", "Basket"), ("button", "Delete", "Remove"), ("link", "Settings", "Preferences"),
           ("button", "Search", "Find"), ("checkbox", "Dark mode", "Night theme")]
FLOWS = [("turn on dark mode", "Settings", "Dark mode"), ("export my invoices", "Billing", "Export"),
         ("change my password", "Account", "Password"), ("mute notifications", "Notifications", "Mute all"),
         ("add a payment card", "Wallet", "Add card"), ("download my data", "Privacy", "Download data")]
SEATS = [{"label": f"{row}{n}", "row": row, "price": price} for row, n, price in
         [(1, 1, 80), (1, 2, 45), (2, 1, 30), (3, 4, 20), (1, 3, 45), (5, 2, 10)]]
PICKS = [("the cheapest seat in row 1", {"hard": [{"field": "row", "op": "==", "value": 1}], "tie_break": ["price_asc",
                                         "label_asc"]}, 1),
         ("the cheapest seat anywhere", {"tie_break": ["price_asc", "label_asc"]}, 5),
         ("the dearest seat", {"tie_break": ["price_desc", "label_asc"]}, 0),
         ("a seat under 40 nearest the front", {"hard": [{"field": "price", "op": "<", "value": 40}],
                                                "tie_break": ["row_asc", "label_asc"]}, 2),
         ("the cheapest seat from row 2 back", {"hard": [{"field": "row", "op": ">=", "value": 2}],
                                                "tie_break": ["price_asc", "label_asc"]}, 5),
         ("the front-most seat of 45", {"hard": [{"field": "price", "op": "==", "value": 45}],
                                        "tie_break": ["row_asc", "label_asc"]}, 1)]


def _tasks() -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = []
    for n, (role, old, new) in enumerate(RENAMED):
        page = "\n".join(['[1] link "Help"', f'[2] {role} "{new}"', '[3] button "Cancel"', f'[4] textbox "Note {n}"'])
        tasks.append({"program": "patch", "page": page,
                      "failure": {"failed_step": 2, "action": "click", "target": {"role": role, "name": old},
                                  "error": "TargetNotFound"},
                      "expect": {"failed_step": 2, "elements": [{"role": role, "name": new}]}})
    for goal, menu, control in FLOWS:
        tasks.append({"program": "workflow", "goal": goal, "page": f'Goal: {goal}\n[1] link "{menu}"\n[2] link "Help"',
                      "expect": {"steps": [f"Open {menu}", f"Use {control}"], "elements": [menu, control]}})
    for goal, policy, chosen in PICKS:
        tasks.append({"program": "policy", "goal": goal,
                      "expect": {"policies": {"pick": policy}, "candidates": SEATS, "chosen": chosen}})
    return tasks


def _dspy(field: str, value: Any) -> str:
    return f"[[ ## {field} ## ]]\n{json.dumps(value)}\n\n[[ ## completed ## ]]"


def _script() -> dict[str, Any]:
    """Right answers once the instructions carry RULE, guesses before. The policy program's
    instructions name no role, so its requests reach the scripted server's default role."""
    patch = [{"when": [RULE, f'\\"{new}\\"'], "keep": True, "content": _dspy(
        "patch", {"ops": [{"op": "replace_target", "step": 2, "index": 0}], "reason": "renamed"}).replace(
        '"index": 0', f'"index": $element({new})')} for _, _, new in RENAMED]
    patch.append({"keep": True, "content": _dspy("patch", {"ops": [{"op": "replace_target", "step": 2, "index": 1}],
                                                           "reason": "guess"})})
    plans = [{"when": [RULE, goal], "keep": True, "content": _dspy("steps", [f"Open {menu}", f"Use {control}"])}
             for goal, menu, control in FLOWS]
    plans.append({"keep": True, "content": _dspy("steps", ["Do what the goal says"])})
    picks = [{"when": [RULE, goal], "keep": True, "content": _dspy("policies", {"pick": policy})}
             for goal, policy, _ in PICKS]
    picks.append({"keep": True, "content": _dspy("policies", {"pick": {}})})
    rewritten = {"You are the Patcher": "You are the Patcher of goalbot. {rule}: the failed step's target was "
                                        "renamed; pick the element of the same role whose name says the same thing.",
                 "You are the Planner": "You are the Planner of goalbot. {rule}: name in each step the control it "
                                        "goes through, as the page names it.",
                 "Choice policies": "Choice policies. {rule}: turn each constraint of the goal into a hard filter "
                                    "and each preference into tie_break keys."}
    reflector = [{"when": [marker], "keep": True, "content": json.dumps({"new_instruction": text.format(rule=RULE)})}
                 for marker, text in rewritten.items()]
    return {"patcher": patch, "planner": plans, "navigator": picks, "reflector": reflector}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="scripted")
    parser.add_argument("--reflection-model")
    parser.add_argument("--api-key", default="")
    parser.add_argument("--budget", type=int, default=240, help="model calls for the three programs together")
    args = parser.parse_args()
    server = None if args.base_url else ScriptedModelServer(Script(_script())).start()
    base_url = args.base_url or server.base_url  # type: ignore[union-attr]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            spec = Path(tmp) / "tasks.jsonl"
            spec.write_text("\n".join(json.dumps(t) for t in _tasks()) + "\n")
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "goalbot", "--db", str(Path(tmp) / "bench.db"), "tune", "--tasks", str(spec),
                 "--budget", str(args.budget), "--base-url", base_url, "--model", args.model,
                 "--reflection-model", args.reflection_model or args.model, "--api-key", args.api_key or "none",
                 "--yes", "--json"], capture_output=True, text=True, cwd=REPO)
            took = time.perf_counter() - started
    finally:
        if server is not None:
            server.stop()
    if done.returncode != 0:
        print(done.stderr[-2000:])
        return 1
    profile = json.loads(done.stdout)
    endpoint = "the scripted model on 127.0.0.1 (figures show the machinery, not a model)" if server else base_url
    print(f"goalbot tune, {endpoint}; model {profile['model']}, reflection {profile['reflection_model']}")
    print(f"{'program':10}{'tasks':>12}{'':8}{'score':>7}{'dry run':>9}{'schema':>8}{'determ.':>9}{'cost':>7}")
    for name, program in profile["programs"].items():
        tasks = f"{len(program['train'])}+{len(program['heldout'])} held"
        for when in ("before", "after"):
            m = program[when]
            print(f"{name if when == 'before' else '':10}{tasks if when == 'before' else '':>12}{when:>8}"
                  f"{m['score']:7.2f}{m['dry_run']:9.2f}{m['schema']:8.2f}{m['determinism']:9.2f}{m['cost']:7.2f}")
    print(f"held-out score {profile['before']:.2f} → {profile['score']:.2f}; promoted (bar {profile['bar']}): "
          f"{profile['promoted']} · {profile['calls']} model calls of a budget of {profile['budget']}, "
          f"{profile['tokens']:,} tokens · {took:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

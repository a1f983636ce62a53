"""The harness's scores before and after a `goalbot tune` round, for whatever endpoint it is
pointed at.

    python bench/tune.py                                   # the scripted model (see below)
    python bench/tune.py --base-url URL --model M [--reflection-model R] [--api-key K] [--budget 80]

The bank is eight patch tasks written here: a rerun's click failed because the site renamed the
element (Save → Store changes, Profile → Your account …), and the page as it is now. Without
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


def _tasks() -> list[dict[str, Any]]:
    tasks = []
    for n, (role, old, new) in enumerate(RENAMED):
        page = "\n".join([f'[1] link "Help"', f'[2] {role} "{new}"', '[3] button "Cancel"', f'[4] textbox "Note {n}"'])
        tasks.append({"program": "patch", "page": page,
                      "failure": {"failed_step": 2, "action": "click", "target": {"role": role, "name": old},
                                  "error": "TargetNotFound"},
                      "expect": {"failed_step": 2, "elements": [{"role": role, "name": new}]}})
    return tasks


def _script() -> dict[str, Any]:
    def answer(index: str) -> str:
        return (f'[[ ## patch ## ]]\n{{"ops": [{{"op": "replace_target", "step": 2, "index": {index}}}], '
                f'"reason": "renamed"}}\n\n[[ ## completed ## ]]')

    rules: list[dict[str, Any]] = [{"when": [RULE, f'\\"{new}\\"'], "keep": True, "content": answer(f"$element({new})")}
                                   for _, _, new in RENAMED]
    rules.append({"keep": True, "content": answer("1")})
    instruction = (f"You are the Patcher of goalbot. {RULE}: the failed step's target was renamed; pick the element "
                   "of the same role whose name says the same thing, and patch only the failed step.")
    return {"patcher": rules, "reflector": [{"keep": True, "content": json.dumps({"new_instruction": instruction})}]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="scripted")
    parser.add_argument("--reflection-model")
    parser.add_argument("--api-key", default="")
    parser.add_argument("--budget", type=int, default=80)
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
                 "--program", "patch", "--budget", str(args.budget), "--base-url", base_url, "--model", args.model,
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
    patch = profile["programs"]["patch"]
    endpoint = "the scripted model (127.0.0.1): figures show the machinery, not a model" if server else base_url
    print(f"goalbot tune on {len(RENAMED)} patch tasks ({len(patch['train'])} to learn from, {len(patch['heldout'])} "
          f"held out), {endpoint}; model {profile['model']}, reflection {profile['reflection_model']}")
    print(f"{'':14}{'score':>7}{'dry run':>9}{'schema':>8}{'determ.':>9}{'cost':>7}")
    for when in ("before", "after"):
        m = patch[when]
        print(f"{when:14}{m['score']:7.2f}{m['dry_run']:9.2f}{m['schema']:8.2f}{m['determinism']:9.2f}{m['cost']:7.2f}")
    print(f"promoted (bar {profile['bar']}): {profile['promoted']} · {profile['calls']} model calls of a budget of "
          f"{profile['budget']}, {profile['tokens']:,} tokens · {took:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

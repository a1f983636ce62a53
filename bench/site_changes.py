"""Recipes over a sequence of site changes: the figures no one publishes for recorded flows.

    python bench/site_changes.py

Four flows of the test site are recorded once with the scripted model, then rerun the way a
person reruns them, with `goalbot rerun` in its own process and an endpoint at hand (a scripted
patcher: it is asked only when no rung finds an element), while the site changes under them:

- darkmode: unchanged; restyled and reworded (twice); the settings behind a menu, then the A/B
  test serving both layouts in turn;
- consent: the cookie banner recorded, then gone, then back;
- account: signed in; the session expired mid-rerun (the site's sign-in recipe renews it); signed in;
- orders: a loop over the 3 orders recorded, then 3 others, 7 and 12.

For each rerun: how it ended, its model calls, the patches it took and the rung each element was
found by. Then the shares: reruns with no model call, reruns that needed a patch and ended well
with one, patches per rerun; and what `goalbot stats` says of the same store. Prints figures;
nothing here asserts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from flows_kit import ORDERS_SCHEMA, account_scripts, consent_script, orders, orders_script  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402
from hardsite.server import HardSite  # noqa: E402
from kit import darkmode_script  # noqa: E402
from storage.db import connect  # noqa: E402

MENU_PATCH = {"server": {"repeat": True}, "patcher": [{"tool_calls": [{"name": "patch", "arguments": {
    "reason": "the settings are behind a menu now",
    "ops": [{"op": "insert_actions", "before_step": 4, "actions": [{"name": "click", "index": {"$element": "Menu"}}]}],
}}]}]}


@dataclass
class Rerun:
    change: str
    ok: bool
    calls: int
    patches: int
    rungs: Counter[str] = field(default_factory=Counter)


class Bench:
    def __init__(self, site: HardSite, folder: Path, patcher: str) -> None:
        self.site, self.db, self.patcher = site, folder / "bench.db", patcher
        self.state, self.folder = folder / "state.json", folder
        self.reruns: list[Rerun] = []

    def goalbot(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "goalbot", "--db", str(self.db), *args], cwd=REPO, text=True,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=600,
                              env={**os.environ, "GOALBOT_MIN_INTERVAL_S": "0"})

    def record(self, script: dict[str, Any], page: str, goal: str, name: str, *flags: str) -> None:
        with ScriptedModelServer(Script(script)) as model:
            done = self.goalbot("run", goal, "--url", self.site.page(page), "--no-tui", "--yes", "--base-url",
                                model.base_url, "--model", "scripted", "--save-recipe", name, *flags)
        if done.returncode != 0:
            raise SystemExit(f"recording {name} failed: {done.stderr.strip().splitlines()[-1:]}\n{done.stdout[-2000:]}")

    def rerun(self, change: str, name: str, page: str, *flags: str, variant: str = "") -> None:
        done = self.goalbot("rerun", name, "--url", self.site.page(page) + variant, "--no-tui", "--yes", "--json",
                            "--base-url", self.patcher, "--model", "scripted", "--secret", "PW=hunter2", *flags)
        try:
            session = json.loads(done.stdout)["session"]
        except (ValueError, KeyError):
            print(f"  {change:<44} did not start: {done.stderr.strip().splitlines()[-1:]}")
            self.reruns.append(Rerun(change, False, 0, 0))
            return
        store = connect(self.db)
        events = [(row["type"], json.loads(row["data"] or "{}")) for row in store.query(
            "select type, data from events where session_id = ? order by seq", [session])]
        store.close()
        rungs = Counter(data.get("resolved_by") for kind, data in events if kind == "ACT_OK" and data.get("resolved_by"))
        patches = sum(1 for kind, data in events if kind == "POLICY" and data.get("policy") == "recipe_patch"
                      and str(data.get("message", "")).startswith("patched"))
        run = Rerun(change, done.returncode == 0, sum(1 for kind, _ in events if kind == "LLM_CALL"), patches, rungs)
        self.reruns.append(run)
        found = ", ".join(f"{rung} {count}" for rung, count in sorted(rungs.items()))
        print(f"  {change:<44} {'ok' if run.ok else 'FAILED':<7} {run.calls:>5} {run.patches:>7}   {found}")
        if not run.ok:
            print(f"    ({done.stderr.strip().splitlines()[-1:]})")


def main() -> None:
    with HardSite() as site, tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(Script(MENU_PATCH)) as patcher:
        bench = Bench(site, Path(tmp), patcher.base_url)
        schema = Path(tmp) / "orders.schema.json"
        schema.write_text(json.dumps(ORDERS_SCHEMA))
        login, prefs = account_scripts()
        site.posted["banner"], site.posted["orders"] = True, orders(1001, 3)
        bench.record(darkmode_script(), "darkmode", "sign in and turn on dark mode", "darkmode", "--secret", "PW=hunter2")
        bench.record(consent_script(), "consent", "accept the cookies and turn on dark mode", "consent")
        bench.record(login, "account", "sign in", "login", "--secret", "PW=hunter2", "--storage-state", str(bench.state))
        bench.record(prefs, "account", "turn on dark mode in the preferences", "prefs",
                     "--storage-state", str(bench.state))
        bench.record(orders_script(orders(1001, 3)), "orders", "download the invoice of every order", "orders",
                     "--schema", f"orders={schema}")
        made = bench.goalbot("recipe", "loop", "orders", "--over", "orders", "--steps", "2")
        if made.returncode != 0:
            raise SystemExit(f"the loop could not be made: {made.stderr.strip()}")

        print(f"  {'site change':<44} {'ended':<7} {'calls':>5} {'patches':>7}   elements found by (rung count)")
        for change, variant, layout in (
                ("darkmode: unchanged", "", ""), ("darkmode: restyled and reworded", "?variant=cosmetic", ""),
                ("darkmode: restyled and reworded, again", "?variant=cosmetic", ""),
                ("darkmode: settings behind a menu (layout B)", "?variant=menu", ""),
                ("darkmode: A/B test at one address, layout A", "", "v1"),
                ("darkmode: A/B test at one address, layout B", "", "menu"),
                ("darkmode: A/B test at one address, layout A", "", "v1")):
            site.variant = layout
            bench.rerun(change, "darkmode", "darkmode", variant=variant)
        for change, banner in (("consent: the banner recorded", True), ("consent: no banner", False),
                               ("consent: the banner is back", True)):
            site.reset()
            site.posted["banner"] = banner
            bench.rerun(change, "consent", "consent")
        for change, expires in (("account: signed in", False), ("account: the session expired mid-rerun", True),
                                ("account: signed in again", False)):
            site.reset()
            site.expire_at = "/account-prefs.html" if expires else None
            bench.rerun(change, "prefs", "account", "--storage-state", str(bench.state))
        for change, first, count in (("orders: 3 other orders", 2001, 3), ("orders: a longer list, 7", 3001, 7),
                                     ("orders: longer still, 12", 4001, 12)):
            site.reset()
            site.posted["orders"] = orders(first, count)
            bench.rerun(change, "orders", "orders")

        runs = bench.reruns
        patched = [run for run in runs if run.patches or run.calls]
        rungs = sum((run.rungs for run in runs), Counter())
        print()
        print(f"  reruns that ended well                  {sum(run.ok for run in runs)}/{len(runs)}")
        print(f"  reruns with no model call               {sum(not run.calls for run in runs)}/{len(runs)} "
              f"({sum(not run.calls for run in runs) / len(runs):.0%})")
        print(f"  healed within one patch                 {sum(run.ok and run.patches <= 1 for run in patched)}"
              f"/{len(patched)} of the reruns that asked the model")
        print(f"  patches per rerun                       {sum(run.patches for run in runs) / len(runs):.2f}")
        print("  elements found by                       "
              + ", ".join(f"{rung} {count}" for rung, count in rungs.most_common()))
        print("\n  goalbot stats on the same store:")
        print("    " + bench.goalbot("stats").stdout.strip().replace("\n", "\n    "))


if __name__ == "__main__":
    main()

"""goalbot beside browser-use (its defaults, and its leanest mode) on the same simple goals, with
the same perfect model, in one run; and a bare Playwright script's start beside each.

    make bench-versus      (installs browser-use 0.13.14 into its own venv first)
    python bench/versus/run.py --browser-use-python .venv-browser-use/bin/python [--rounds 2]

Each round runs every task once with each agent, the order rotating, each a fresh process.
The page reports what it was sent, so success is the site's word. The model answers at once, so
every second is the framework's. Medians per episode and totals, and the ratios a user compares;
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(HERE), str(REPO)]

from cpu import TreeCPU  # noqa: E402
from model import PerfectModel, serve_model  # noqa: E402
from served_site import SiteLog, serve_site  # noqa: E402
from tasks import TASKS, Task  # noqa: E402

from goalbot.operators.browser.locate import find_browser  # noqa: E402

TASKS_BY_NAME = {task.name: task for task in TASKS}

AGENTS = ("goalbot", "browser-use-lean", "browser-use")
BARE = "playwright"  # a bare script: its start is the floor any agent's is compared with


@dataclass
class Result:
    agent: str
    task: str
    success: bool
    calls: int
    prompt_chars: int
    user_chars: int  # without the system prompt, which a provider may cache
    images: int
    startup_s: float
    loop_s_per_action: float
    browser_cpu_per_action: float
    other_cpu_s: float
    wall_s: float
    looks: int = 0  # goalbot's OBSERVATION events; browser-use captures its state once per step (a call)
    screenshots: int = 0  # taken, whether or not a model was shown them


GOALBOT_FLAGS: list[str] = []  # --goalbot-flag: to see what one setting changes


def command(agent: str, task: Task, url: str, base_url: str, db: Path, bu_python: str, chromium: str) -> list[str]:
    if agent == "goalbot":
        secrets = [flag for name, value in task.secrets for flag in ("--secret", f"{name}={value}")]
        return [sys.executable, "-m", "goalbot", "--db", str(db), "run", task.goal_with_references(), "--url", url,
                "--no-tui", "--yes", "--headless", "--base-url", base_url, "--model", "perfect", "--api-key", "bench",
                *secrets, *GOALBOT_FLAGS]
    if agent == BARE:
        return [sys.executable, str(HERE / "bare_playwright.py"), url, chromium]
    mode = "lean" if agent == "browser-use-lean" else "default"
    return [bu_python, str(HERE / "browser_use_agent.py"), task.goal, url, base_url, chromium, mode]


def goalbot_looks(db: Path) -> tuple[int, int]:
    """The last run's looks and screenshots, from its store (none when the run was refused)."""
    with sqlite3.connect(db) as conn:
        try:
            (session,) = conn.execute("select id from sessions order by rowid desc limit 1").fetchone()
        except (sqlite3.Error, TypeError):
            return 0, 0
        looks = conn.execute("select count(*) from events where session_id = ? and type = 'OBSERVATION'",
                             (session,)).fetchone()[0]
        shots = conn.execute("select count(*) from artifacts where session_id = ? and kind = 'screenshot'",
                             (session,)).fetchone()[0]
    return looks, shots


def episode(agent: str, task: Task, site: tuple[str, SiteLog], model: PerfectModel, base_url: str, bu_python: str,
            chromium: str, scratch: Path) -> Result:
    site_url, log = site
    log.reset()
    calls = model.begin(task).calls
    env = {**os.environ, "HOME": str(scratch), "PYTHONPATH": str(REPO)}
    args = command(agent, task, f"{site_url}/{task.name}.html", base_url, scratch / f"{agent}.db", bu_python, chromium)
    errors = scratch / "stderr.txt"
    started = time.monotonic()
    with errors.open("wb") as stderr:  # a file, not a pipe: nobody has to drain it while the run goes
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                   env=env, cwd=scratch)
    tree = TreeCPU(process.pid)
    tree.start()
    # wait4, not wait: the CPU of the process and of every descendant it reaped
    _pid, status, usage = os.wait4(process.pid, 0)
    ended = time.monotonic()
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must be told
    browser_cpu, polled_other = tree.stop()
    success = log.reports.get(task.name) == task.expected or agent == BARE
    if not success:
        print(f"  {agent} {task.name}: not reached (exit {process.returncode}) "
              f"{errors.read_text(errors='replace')[-400:]}", file=sys.stderr)
    first = log.first_page_at or ended
    answering = sum(c.seconds for c in calls)
    last = calls[-1].at if calls else ended
    total_cpu = usage.ru_utime + usage.ru_stime
    looks, shots = goalbot_looks(scratch / "goalbot.db") if agent == "goalbot" else (len(calls), len(calls))
    return Result(
        agent, task.name, success, len(calls), sum(c.prompt_chars for c in calls),
        sum(c.prompt_chars - c.system_chars for c in calls), sum(c.images for c in calls),
        first - started, (last - first - answering) / task.actions, browser_cpu / task.actions,
        max(polled_other, total_cpu - browser_cpu), ended - started, looks, shots,
    )


def table(results: list[Result]) -> str:
    def column(agent: str) -> list[Result]:
        return [r for r in results if r.agent == agent]

    def median(agent: str, key: str) -> float:
        return statistics.median(getattr(r, key) for r in column(agent))

    def total(agent: str, key: str) -> float:
        return sum(getattr(r, key) for r in column(agent))

    def actions(agent: str) -> int:
        return sum(TASKS_BY_NAME[r.task].actions for r in column(agent))

    rows = [
        ("succeeded", lambda a: f"{sum(r.success for r in column(a))}/{len(column(a))}", None),
        ("model calls, total", lambda a: f"{total(a, 'calls'):.0f}", lambda a: total(a, "calls")),
        ("model calls per task, median", lambda a: f"{median(a, 'calls'):g}", lambda a: median(a, "calls")),
        ("prompt characters, total", lambda a: f"{total(a, 'prompt_chars'):,.0f}", lambda a: total(a, "prompt_chars")),
        ("prompt characters without system prompts, total", lambda a: f"{total(a, 'user_chars'):,.0f}",
         lambda a: total(a, "user_chars")),
        ("screenshots sent to the model", lambda a: f"{total(a, 'images'):.0f}", None),
        ("start-up to the first page request, s (median)", lambda a: f"{median(a, 'startup_s'):.2f}",
         lambda a: median(a, "startup_s")),
        ("agent loop s per action, model time excluded (median)", lambda a: f"{median(a, 'loop_s_per_action'):.2f}",
         lambda a: median(a, "loop_s_per_action")),
        ("browser CPU s per action (median)", lambda a: f"{median(a, 'browser_cpu_per_action'):.2f}",
         lambda a: median(a, "browser_cpu_per_action")),
        ("other CPU s per task: Python, driver (median)", lambda a: f"{median(a, 'other_cpu_s'):.2f}",
         lambda a: median(a, "other_cpu_s")),
        ("wall s per task (median)", lambda a: f"{median(a, 'wall_s'):.2f}", lambda a: median(a, "wall_s")),
    ]
    rows += [
        ("looks per action (browser-use: its steps)", lambda a: f"{total(a, 'looks') / actions(a):.2f}",
         lambda a: total(a, "looks") / actions(a)),
        ("screenshots per action", lambda a: f"{total(a, 'screenshots') / actions(a):.2f}",
         lambda a: total(a, "screenshots") / actions(a)),
    ]
    lines = ["| measure | goalbot | browser-use lean | browser-use | ÷ lean | ÷ default |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, shown, value in rows:
        ratios = []
        for other in ("browser-use-lean", "browser-use"):
            ratios.append(f"{value('goalbot') / value(other):.2f}" if value is not None and value(other) else "")
        lines.append(f"| {label} | {shown('goalbot')} | {shown('browser-use-lean')} | {shown('browser-use')} | "
                     f"{' | '.join(ratios)} |")
    bare = median(BARE, "startup_s")
    lines.append(f"\nstart-up to the first page request, bare Playwright script: {bare:.2f} s (median); "
                 f"goalbot {median('goalbot', 'startup_s') / bare:.2f}×, browser-use lean "
                 f"{median('browser-use-lean', 'startup_s') / bare:.2f}×")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--browser-use-python", required=True, help="an interpreter with browser-use installed")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write every episode here")
    parser.add_argument("--goalbot-flag", action="append", default=[], metavar="FLAG",
                        help="passed on to `goalbot run` (repeatable; --goalbot-flag=--min-interval=0)")
    options = parser.parse_args()
    GOALBOT_FLAGS.extend(options.goalbot_flag)
    chromium = find_browser().path or ""
    site_url, log, site_server = serve_site()
    model = PerfectModel()
    base_url, model_server = serve_model(model)
    results: list[Result] = []
    bu_python = os.path.abspath(options.browser_use_python)  # not resolve(): a venv's python is a link
    with tempfile.TemporaryDirectory(prefix="goalbot-versus-") as scratch:
        for round_number in range(options.rounds):
            order = (*AGENTS[round_number % len(AGENTS):], *AGENTS[:round_number % len(AGENTS)], BARE)
            for task in TASKS:
                for agent in order:
                    run_dir = Path(scratch) / f"{round_number}-{task.name}-{agent}"
                    run_dir.mkdir()
                    result = episode(agent, task, (site_url, log), model, base_url, bu_python,
                                     chromium, run_dir)
                    results.append(result)
                    print(f"{agent:12} {task.name:13} {'ok' if result.success else 'FAILED':6} calls {result.calls}"
                          f"  wall {result.wall_s:5.1f} s", file=sys.stderr)
    site_server.shutdown()
    model_server.shutdown()
    if options.json:
        options.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    print(f"{len(TASKS)} tasks × {options.rounds} rounds; ratios are goalbot ÷ browser-use lean and ÷ its defaults")
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

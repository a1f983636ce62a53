"""Many at once: 20 reruns of one recipe as a `goalbot batch`, next to the same flow written by hand
in Playwright, run with the same parallelism.

    python bench/batch.py [--jobs 20] [--rounds 3] [--no-celery]

The flow is the test site's sign-in and dark mode (tests/hardsite/pages/darkmode.html, five
actions), recorded once with the scripted model. A goalbot job runs in a slot (a process that keeps
its browser, the job a fresh context of it: what a worker is). Two hand-written baselines: a script
per job that starts its own browser, and — the honest one — a worker per slot that keeps one
browser and opens a context per job, as anyone writing a batch by hand would. Both start Chromium
with goalbot's flags (`LAUNCH_ARGS`): a flag that makes a context cheaper speeds the baselines up
as much as goalbot. Figures:

- jobs per minute with 1, 2 and 4 local workers (`goalbot batch --workers N`), and through Celery
  with 2 workers of 1 browser each (`goalbot batch --broker`, Debian's redis-server, started here);
- both hand-written baselines at the same parallelism, and goalbot's throughput as a share of
  each (the target: ≥ 0.8× the kept-browser one). goalbot and the two baselines take turns
  `--rounds` times; jobs per minute are the medians of the rounds, a share the median of each
  round's goalbot against the same round's baseline, so a machine whose speed drifts during the
  run weighs on all three alike; the share of each round is printed too;
- one worker again with `--trace failed`, which records a Playwright trace of every job to keep
  a failed one's;
- peak memory per worker: the most the processes of one slot held at once (PSS, so pages the
  browser's processes share are counted once), sampled every 0.2 s; the hand-written workers are
  sampled the same way, so the sampling's own CPU weighs on both sides;
- where a job's time goes with one worker, from its stored events: its page opened and first
  looked at, its actions, and the gap before the next job starts.

The batches run with --min-interval 0: the hand-written script keeps no pace, and the default pace
is the site's, shared by every job (20 jobs × 5 actions at 0.5 s a site cannot go faster than
about 50 s); one line shows the default pace too. Prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench"), str(REPO / "tests")]

from hardsite.server import HardSite  # noqa: E402
from rerun import record  # noqa: E402
from goalbot.recipes.build import build  # noqa: E402
from storage import queries, recipes  # noqa: E402
from storage.db import connect  # noqa: E402

BY_HAND = REPO / "bench" / "batch_by_hand.py"
KEY = "the bench's cluster key, sixteen+"


class PeakMemory:
    """The most memory some processes' descendants (and, with `counted`, themselves) held at
    once, sampled in a thread. `roots` may grow while it samples."""

    def __init__(self, *roots: int, counted: bool = False) -> None:
        self.roots, self.counted, self.peak_kb, self._stop = set(roots), counted, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            pids = _descendants(self.roots) | (set(self.roots) if self.counted else set())
            self.peak_kb = max(self.peak_kb, sum(_pss_kb(pid) for pid in pids))


def _descendants(roots: set[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def goalbot(db: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "goalbot", "--db", str(db), *args], cwd=REPO, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env or dict(os.environ))


def timed_batch(db: Path, jobs: Path, secrets: Path, *flags: str, env: dict[str, str] | None = None,
                watch: list[int] | None = None) -> tuple[float, int, int]:
    """Seconds for the batch, jobs that ended well, and peak memory (KB) of what it started."""
    started = time.perf_counter()
    batch = goalbot(db, "batch", str(jobs), "--json", "--secrets-file", str(secrets), *flags, env=env)
    with PeakMemory(*(watch or [batch.pid])) as memory:
        out, err = batch.communicate(timeout=1800)
    took = time.perf_counter() - started
    ended = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    ok = sum(job["status"] == "ok" for job in ended)
    for job in ended:
        if job["status"] != "ok":
            print(f"  (job {job['job']}: {job['status']}: {job['reason']})")
            break
    if batch.returncode not in (0, 1):
        print(f"  (the batch ended with {batch.returncode}: {err.strip().splitlines()[-1:]})")
    return took, ok, memory.peak_kb


async def by_hand(url: str, jobs: int, parallel: int) -> tuple[float, int]:
    """Seconds for `jobs` hand-written scripts, `parallel` at once, and their peak memory (KB)."""
    gate = asyncio.Semaphore(parallel)
    memory = PeakMemory(counted=True)  # each script's own process, its driver and its browser

    async def one() -> bool:
        async with gate:
            process = await asyncio.create_subprocess_exec(sys.executable, str(BY_HAND), url)
            memory.roots.add(process.pid)
            return await process.wait() == 0

    started = time.perf_counter()
    with memory:
        done = await asyncio.gather(*(one() for _ in range(jobs)))
    took = time.perf_counter() - started
    assert all(done), "a hand-written script failed"
    return took, memory.peak_kb


async def by_hand_kept(url: str, jobs: int, parallel: int, safety: bool = False) -> tuple[float, int]:
    """Seconds for `jobs` hand-written jobs shared by `parallel` workers, each keeping one browser,
    and their peak memory (KB), sampled as goalbot's is: the sampling costs both the same CPU.
    `safety`: each job inside goalbot's page-side safety (batch_by_hand.py --safety)."""
    shares = [jobs // parallel + (n < jobs % parallel) for n in range(parallel)]
    memory = PeakMemory(counted=True)
    started = time.perf_counter()
    with memory:
        workers = []
        for share in [share for share in shares if share]:
            workers.append(await asyncio.create_subprocess_exec(sys.executable, str(BY_HAND), url, "--kept",
                                                                str(share), *(["--safety"] if safety else [])))
            memory.roots.add(workers[-1].pid)
        codes = await asyncio.gather(*(worker.wait() for worker in workers))
    assert not any(codes), "a hand-written worker failed"
    return time.perf_counter() - started, memory.peak_kb


def job_split(db: Path, jobs: int) -> str:
    """Medians over the last `jobs` sessions (one worker: one after another): start (TASK_START to
    the first look: a context, a tab, the page loaded and read), actions (to the run's end), gap
    (to the next job's start: the store, the job's bookkeeping)."""
    from datetime import datetime

    store = connect(db)
    ids = [row["id"] for row in store.query("select id from sessions order by rowid desc limit ?", [jobs])][::-1]
    spans = []
    for session in ids:
        events = list(store.query("select ts, type from events where session_id = ? order by seq", [session]))
        at = [datetime.fromisoformat(e["ts"]).timestamp() for e in events]
        first_look = next(t for t, e in zip(at, events) if e["type"] == "OBSERVATION")
        spans.append((at[0], first_look, at[-1]))
    store.close()
    gaps = [after[0] - before[2] for before, after in zip(spans, spans[1:])]
    return (f"start {median(s[1] - s[0] for s in spans):.2f} s, actions {median(s[2] - s[1] for s in spans):.2f} s, "
            f"gap to the next job {median(gaps):.2f} s" if gaps else "")


def start_cluster(tmp: Path) -> tuple[list[subprocess.Popen[str]], str, dict[str, str]] | None:
    binary = shutil.which("redis-server")
    if binary is None:
        print("  (no redis-server: apt-get install redis-server; the Celery line is left out)")
        return None
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GOALBOT_CLUSTER_KEY": KEY}
    redis = subprocess.Popen([binary, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp)],
                             stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    workers = [goalbot(tmp / f"w{n}.db", "worker", "--broker", url, "--browsers", "1", "--name", f"bench{n}@here",
                       "--min-interval", "0", "--secrets-file", str(tmp / "secrets"), env=env) for n in (1, 2)]
    import redis as redis_client

    client = redis_client.Redis.from_url(url)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if client.hlen("goalbot:workers") == 2:
                break
        except redis_client.RedisError:
            pass
        time.sleep(0.2)
    return [redis, *workers], url, env


def compiled() -> None:
    """goalbot's modules in bytecode first, as pip leaves an installed package (`make bytecode`). In a
    checkout with a module edited since, where PYTHONDONTWRITEBYTECODE is set, each slot and the
    batch would compile it again at every start: a cost no installed goalbot pays."""
    for package in ("goalbot", "storage"):
        compileall.compile_dir(REPO / package, quiet=1)


@contextlib.contextmanager
def darkmode_jobs(jobs_count: int) -> Iterator[tuple[str, Path, Path, Path]]:
    """The test site's darkmode page (its address), a store holding its recipe, recorded once with the
    scripted model, a jobs file of `jobs_count` reruns of it, and the secrets file they type from."""
    compiled()
    with HardSite() as site, tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        url = site.page("darkmode")
        db = tmp / "bench.db"
        _, session_id, _ = asyncio.run(record(db, url, 0.0))
        store = connect(db)
        recipes.save(store, build("darkmode", queries.session_events(store, session_id), {}))
        store.close()
        secrets = tmp / "secrets"
        secrets.write_text("PW=hunter2\n")
        jobs = tmp / "jobs.jsonl"
        jobs.write_text("".join(json.dumps({"recipe": "darkmode"}) + "\n" for _ in range(jobs_count)))
        yield url, db, jobs, secrets


def main(jobs_count: int, celery: bool, rounds: int) -> None:
    with darkmode_jobs(jobs_count) as (url, db, jobs, secrets):
        print(f"{jobs_count} reruns of a five-action recipe (goalbot: a context of its slot's browser each; "
              "by hand, kept: the same; by hand, spawned: a process and a browser each)")
        print(f"{'':<34} {'jobs/min':>9} {'kept':>7} {'share':>7} {'spawned':>8} {'share':>7} "
              f"{'MB/worker':>10} {'kept':>6} {'spawned':>8}")
        for workers in (1, 2, 4):
            # The three take turns, `rounds` times: a machine that speeds up or slows down mid-run
            # weighs on all three alike.
            rates, kept_rates, hand_rates, peaks, kept_peaks, hand_peaks = [], [], [], [], [], []
            split = ""
            for round_ in range(rounds):
                took, ok, peak = timed_batch(db, jobs, secrets, "--workers", str(workers), "--min-interval", "0")
                rates.append(ok / took * 60)
                peaks.append(peak)
                if workers == 1 and round_ == rounds - 1:
                    split = job_split(db, jobs_count)
                kept_took, kept_peak = asyncio.run(by_hand_kept(url, jobs_count, workers))
                kept_rates.append(jobs_count / kept_took * 60)
                kept_peaks.append(kept_peak)
                hand, hand_peak = asyncio.run(by_hand(url, jobs_count, workers))
                hand_rates.append(jobs_count / hand * 60)
                hand_peaks.append(hand_peak)
            # A share is goalbot's round against the baselines' same round: the median of those.
            kept_share = median(r / k for r, k in zip(rates, kept_rates))
            hand_share = median(r / h for r, h in zip(rates, hand_rates))
            print(f"{f'goalbot batch --workers {workers}':<34} {median(rates):9.1f} {median(kept_rates):7.1f} "
                  f"{kept_share:6.2f}× {median(hand_rates):8.1f} {hand_share:6.2f}× {median(peaks) / 1024 / workers:10.0f} "
                  f"{median(kept_peaks) / 1024 / workers:6.0f} {median(hand_peaks) / 1024 / workers:8.0f}")
            if rounds > 1:
                print(f"  shares of the kept baseline, round by round: "
                      f"{', '.join(f'{r / k:.2f}×' for r, k in zip(rates, kept_rates))}")
            if split:
                print(f"  a job, one worker (medians, the last round): {split}")
        took, ok, _ = timed_batch(db, jobs, secrets, "--workers", "1", "--min-interval", "0", "--trace", "failed")
        print(f"{'  one worker, --trace failed':<34} {ok / took * 60:9.1f}   (a trace recorded for every job)")
        took, ok, _ = timed_batch(db, jobs, secrets, "--workers", "2")
        print(f"{'  the same, default pace (0.5 s)':<34} {ok / took * 60:9.1f}   (the site's pace, shared by the jobs)")
        if not celery:
            return
        cluster = start_cluster(db.parent)
        if cluster is None:
            return
        processes, broker, env = cluster
        try:
            took, ok, peak = timed_batch(db, jobs, secrets, "--broker", broker, env=env,
                                         watch=[p.pid for p in processes[1:]])
            hand, hand_peak = asyncio.run(by_hand(url, jobs_count, 2))
            rate, hand_rate = ok / took * 60, jobs_count / hand * 60
            print(f"{'goalbot batch --broker, 2 workers':<34} {rate:9.1f} {hand_rate:9.1f} {rate / hand_rate:6.2f}× "
                  f"{peak / 1024 / 2:10.0f} {hand_peak / 1024 / 2:8.0f}")
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                process.wait(60)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--no-celery", action="store_true", help="leave out the line through Celery")
    parser.add_argument("--rounds", type=int, default=3,
                        help="times goalbot and both baselines take turns at each parallelism (medians)")
    arguments = parser.parse_args()
    if arguments.jobs < 1 or arguments.rounds < 1:
        parser.error("--jobs and --rounds are 1 at least")
    main(arguments.jobs, not arguments.no_celery, arguments.rounds)

"""What goalbot's page-side safety costs a batch, apart from goalbot itself.

    python bench/batch_safety.py [--workers 2] [--rounds 4] [--jobs 20]

Three batches of the same reruns take turns (bench/batch.py's flow and recipe): the hand-written
workers that keep a browser and open a context per job (batch.py's kept baseline); the same
workers with each job inside goalbot's page-side safety, set up by goalbot's own modules (the
domain guard, the write hold's socket route and script, the page scripts, a settled look before
each action: batch_by_hand.py --safety); and `goalbot batch`. Prints jobs per minute and each
round's shares: of the safety against the bare baseline (what the safety costs any job), and of
goalbot against each (what goalbot costs beyond it: its gate and the checks of each action, the
store, its processes). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
from statistics import median

from batch import by_hand_kept, darkmode_jobs, timed_batch


def main(jobs_count: int, workers: int, rounds: int) -> None:
    with darkmode_jobs(jobs_count) as (url, db, jobs, secrets):
        rows = []
        for _ in range(rounds):
            bare, _ = asyncio.run(by_hand_kept(url, jobs_count, workers))
            safe, _ = asyncio.run(by_hand_kept(url, jobs_count, workers, safety=True))
            took, ok, _ = timed_batch(db, jobs, secrets, "--workers", str(workers), "--min-interval", "0")
            rates = (jobs_count / bare * 60, jobs_count / safe * 60, ok / took * 60)
            rows.append(rates)
            print(f"  bare {rates[0]:6.1f}   with the safety {rates[1]:6.1f}   goalbot {rates[2]:6.1f} jobs/min   "
                  f"safety/bare {rates[1] / rates[0]:.2f}×  goalbot/bare {rates[2] / rates[0]:.2f}×  "
                  f"goalbot/safety {rates[2] / rates[1]:.2f}×", flush=True)
        print(f"{jobs_count} reruns, {workers} workers, medians of {rounds} rounds: the safety "
              f"{median(r[1] / r[0] for r in rows):.2f}× the bare baseline; goalbot "
              f"{median(r[2] / r[0] for r in rows):.2f}× the bare baseline and "
              f"{median(r[2] / r[1] for r in rows):.2f}× the baseline with the safety")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args()
    if min(args.workers, args.rounds, args.jobs) < 1:
        parser.error("--workers, --rounds and --jobs are 1 at least")
    main(args.jobs, args.workers, args.rounds)

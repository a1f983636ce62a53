"""How goals in other words find their recipes, over the held-out corpus of English and Korean
wordings (tests/fixtures/goal_wordings.json): found surely, rightly none, unsure, missed, wrong.

    python bench/goal_wordings.py [--list missed,unsure]

Prints figures; nothing here asserts (tests/unit/test_goal_wordings.py holds 0 wrong)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from wordings import OUTCOMES, judged, tally  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", default="", help="outcomes whose wordings to print, comma-separated")
    args = parser.parse_args()
    rows = judged()
    by = tally(rows)
    print(f"{'':6}" + "".join(f"{outcome:>14}" for outcome in OUTCOMES) + f"{'wordings':>10}")
    for language in ("en", "ko", "all"):
        counts = by[language]
        print(f"{language:6}" + "".join(f"{counts[o]:>14}" for o in OUTCOMES) + f"{sum(counts.values()):>10}")
    wanted = {o.strip() for o in args.list.split(",") if o.strip()}
    for row in rows:
        if row.outcome in wanted:
            print(f"{row.outcome:>8}  {row.kind:18} {row.goal}  →  {row.said or 'nothing'}")


if __name__ == "__main__":
    main()

"""`goalbot stats`: seed 002 §12's operating metrics over stored runs — a recipe's reruns, a day's
runs, all of them — and its SLOs said met or not, from runs the test makes on the seat picker."""

from __future__ import annotations

import json
from pathlib import Path

from kit import answer, call, run_cli
from hardsite.server import HardSite
from seats_kit import SATURDAY, as_data, record_seats

DEAD = "http://127.0.0.1:9/v1"


def _stats(db_path: Path, *flags: str) -> dict:
    result = run_cli("--db", str(db_path), "stats", "--json", *flags)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_recipes_reruns_give_its_rates_and_its_slos(hardsite: HardSite, model_server, db_path: Path,
                                                      tmp_path: Path) -> None:
    recorded, _, _ = record_seats(hardsite, model_server, db_path, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    hardsite.posted["seats"] = SATURDAY
    rerun = ("--db", str(db_path), "rerun", "seats", "--var", "MAX=55", "--no-tui", "--yes")
    assert run_cli(*rerun, "--base-url", DEAD).returncode == 0  # places read, no model
    hardsite.posted["layout"] = "cards"
    model = model_server({"extractor": [answer(call("extracted", data=as_data(SATURDAY)))]})
    assert run_cli(*rerun, "--base-url", model.base_url, "--model", "scripted").returncode == 0  # one re-read
    hardsite.posted["seats"] = [dict(seat, status="sold") for seat in SATURDAY]
    # Nothing left to choose: a checkpoint, which waits for `goalbot attach` until its timeout.
    stuck = run_cli(*rerun, "--base-url", DEAD, "--await-attach", "--approval-timeout", "1")
    assert stuck.returncode != 0

    seats = _stats(db_path, "--recipe", "seats")
    assert seats["runs"] == seats["reruns"] == 3
    assert abs(seats["succeeded"] - 2 / 3) < 1e-9 and abs(seats["patch_rate"] - 1 / 3) < 1e-9
    assert abs(seats["model_calls_per_run"] - 1 / 3) < 1e-9
    assert seats["checkpoint_wait_seconds"] >= 1.0  # the checkpoint waited out its timeout
    # Two reruns asked the model nothing; the one it patched (a re-read) ended well after that one patch.
    assert abs(seats["no_model_share"] - 2 / 3) < 1e-9 and abs(seats["patches_per_rerun"] - 1 / 3) < 1e-9
    assert seats["healed_within_one_patch"] == 1.0
    calls, success = seats["slos"]
    assert calls["met"] is False and success["met"] is False  # 0.33 calls a rerun; 67% succeeded
    everything = _stats(db_path)
    assert everything["runs"] == 4 and everything["reruns"] == 3  # and the run the recipe was made from
    assert _stats(db_path, "--since", "2999-01-01")["runs"] == 0
    words = run_cli("--db", str(db_path), "stats", "--recipe", "seats").stdout
    assert "3 recipe seats's reruns" in words and "SLO success from the second run ≥ 95%: 67% NOT met" in words
    assert "reruns with no model call    67%" in words and "healed within one patch      100%" in words, words


def test_a_bad_day_is_refused_in_one_line(db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "stats", "--since", "yesterday")
    assert result.returncode == 2 and "--since wants a day as YYYY-MM-DD" in result.stderr

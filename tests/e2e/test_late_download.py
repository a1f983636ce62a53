"""A download the page begins well after its click has ended (a button that asks its server for
the file first) is still the run's: kept in the store with the session when the run ends."""

from __future__ import annotations

from pathlib import Path

from kit import answer, call, element, finished, plan, rows, run_goal, verdict


def test_a_download_that_begins_after_its_click_ended_is_kept(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    # Each answer takes a while, as a real model's does: the run ends seconds after the click.
    model = model_server({"planner": [plan("Export the report as CSV")],
                          "navigator": [answer(call("click", index=element("Export CSV", role="button"))),
                                        finished(summary="exported")],
                          "validator": [verdict(True, "the export was asked for")] * 2,
                          "server": {"latency_s": 3.0}})
    result, events = run_goal(db_path, model, hardsite.page("late-download"), "export the report as CSV")
    assert result.returncode == 0, result.stderr
    # The click ended before the download began: nothing had changed yet, as far as it could tell.
    clicked = next(e for e in events if e["type"] in ("ACT_OK", "ACT_FAIL") and e["action"]["name"] == "click")
    assert "files" not in clicked
    [kept] = rows(db_path, "select name, content from artifacts where kind = 'download'")
    assert (kept["name"], kept["content"].decode()) == ("export.csv", "name,city\n민지,서울\n")

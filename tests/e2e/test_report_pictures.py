"""`goalbot report --pictures DIR`: the screens of the moments that mattered, as the run saw them,
beside a report that draws them — here the GO a run nobody watched still asked for."""

from __future__ import annotations

from pathlib import Path

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict


def test_the_report_shows_the_screen_of_the_go_that_was_asked(hardsite, model_server, db_path: Path,
                                                              tmp_path: Path) -> None:
    hardsite.reset()
    model = model_server({"planner": [plan("Buy the order")] * 2,
                          "navigator": [answer(call("click", index=element("Buy now"))), finished()],
                          "validator": [verdict(False, "not bought")] * 2})
    result, events = run_goal(db_path, model, hardsite.page("checkout"), "buy the order", "--max-failures", "1")
    assert result.returncode == 1 and events[-1]["reason"].startswith("NOT GO"), events[-1]
    asked = next(e for e in events if e["type"] == "APPROVAL_REQUEST")

    plain = run_cli("--db", str(db_path), "report")
    assert "## Pictures" in plain.stdout and "--pictures DIR" in plain.stdout, plain.stdout

    folder = tmp_path / "pictures"
    made = run_cli("--db", str(db_path), "report", "--pictures", str(folder))
    assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
    report = (folder / "report.md").read_text(encoding="utf-8")
    [go_line] = [line for line in report.splitlines() if line.startswith("![the GO asked for")]
    picture = folder / go_line.rsplit("(", 1)[1].rstrip(")")
    # The very screen the GO was asked on, as the store keeps it.
    [kept] = rows(db_path, "select content from artifacts where id = ?", asked["screenshot"])
    assert picture.read_bytes() == kept["content"] and picture.read_bytes()[:2] == b"\xff\xd8"
    # Into a file that is no folder, nothing is written, and the reason is said.
    clash = run_cli("--db", str(db_path), "report", "--pictures", str(folder / "report.md"))
    assert clash.returncode == 2 and "not a folder" in clash.stderr and "Traceback" not in clash.stderr

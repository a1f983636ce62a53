"""Regular expressions a person or a host hands in — a schema's `pattern`, a policy's `matches` —
cannot hang a run: each runs in linear time (RE2) on a page's longest text, and what RE2 cannot run
is refused before anything starts. A SIGTERM ends a run in the middle of its extraction, stored
as cancelled."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hardsite.server import HardSite
from kit import REPO, answer, call, finished, plan, rows, run_cli, run_goal, verdict, wait_until

LONG = "a" * 40_000 + "!"  # what makes a backtracking engine take for ever on a nested repeat
LABELS = {"type": "array", "items": {"type": "object", "required": ["label"],
                                     "properties": {"label": {"type": "string"}}}}


@pytest.mark.parametrize("pattern", ["^(a|aa)+$", "^(\\w|\\d)+$", "^(a+)+$"])
def test_a_catastrophic_matches_pattern_in_a_policy_ends_its_run(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path, pattern: str) -> None:
    hardsite.reset()
    policies = tmp_path / "policies.json"
    policies.write_text(json.dumps({"plain": {"hard": [{"field": "label", "op": "matches", "value": pattern}],
                                              "pick": "argmax"}}))
    model = model_server({
        "planner": [plan("Read the labels and pick a plain one")],
        "navigator": [answer(call("extract", instruction="every label", key="labels", schema=LABELS),
                             call("choose", **{"from": "labels"}, policy="plain")),
                      finished(summary="picked")],
        "extractor": [answer(call("extracted", data=[{"label": LONG}, {"label": "aaaa"}]))],
        "validator": [verdict(True, "picked")] * 2})
    result, events = run_goal(db_path, model, hardsite.page("seat-picker"), "pick a plain label",
                              "--policies", str(policies))
    chosen = [e for e in events if e["type"] == "CHOSEN"]
    assert chosen and chosen[0]["chosen"]["label"] == "aaaa", (result.stderr, chosen)


def test_a_catastrophic_pattern_in_the_output_schema_ends_its_run(
        hardsite: HardSite, model_server, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    schema = tmp_path / "code.json"
    schema.write_text(json.dumps({"type": "object", "required": ["code"],
                                  "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}},
                                  "patternProperties": {"^(b+)+$": {"type": "string"}}}))
    model = model_server({"planner": [plan("Read the code")], "navigator": [finished(summary="read")],
                          "extractor": [answer(call("extracted", data={"code": LONG, "b" * 30_000 + "!": "x"}))] * 3,
                          "validator": [verdict(True, "read")] * 2})
    result, _ = run_goal(db_path, model, hardsite.page("seat-picker"), "read the code", "--output-schema",
                         str(schema), "--json")
    outcome = json.loads(result.stdout)
    assert outcome["valid"] is False and any("does not match" in error for error in outcome["errors"]), outcome


@pytest.mark.parametrize("pattern", ["^(a+)\\1+$", "(?=a)a", "(?<!b)a"])
def test_a_pattern_re2_cannot_run_is_refused_before_anything_starts(tmp_path: Path, db_path: Path,
                                                                   pattern: str) -> None:
    schema, policies = tmp_path / "schema.json", tmp_path / "policies.json"
    schema.write_text(json.dumps({"type": "string", "pattern": pattern}))
    policies.write_text(json.dumps({"p": {"hard": [{"field": "x", "op": "matches", "value": pattern}]}}))
    for flags in (("--output-schema", str(schema)), ("--policies", str(policies))):
        done = run_cli("--db", str(db_path), "run", "read it", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                       "--base-url", "http://127.0.0.1:9/v1", "--model", "m", *flags)
        assert done.returncode == 2 and "RE2" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not db_path.exists() or rows(db_path, "select count(*) as n from sessions")[0]["n"] == 0


def test_sigterm_in_the_middle_of_an_extraction_ends_the_run_as_cancelled(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    hardsite.reset()
    model = model_server({"planner": [plan("Read the seats")],
                          "navigator": [answer(call("extract", instruction="every seat", key="seats", schema=LABELS))],
                          "extractor": [{"fault": "hang", "seconds": 90}]})
    run = subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "read the seats", "--url",
         hardsite.page("seat-picker"), "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        wait_until(lambda: rows(db_path, "select 1 from events where type = 'ACT_START' and data like '%extract%'"),
                   90, "the extraction to start")
        run.send_signal(signal.SIGTERM)
        _out, errors = run.communicate(timeout=60)  # seconds, not the model's 90
    finally:
        run.kill()
    assert "Traceback" not in errors
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"

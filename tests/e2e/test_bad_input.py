"""Bad input — a file that is not UTF-8, an endpoint that is not an address, a goal with nothing
in it, a browser that is not there — is one clear line and exit 2, never a traceback or a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import answer, call, element, finished, plan, run_cli, run_goal, verdict

NOT_UTF8 = b"PW=caf\xe9\xff\n"


def _one_line(result, says: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and says in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_secrets_file_that_is_not_utf8(tmp_path: Path, db_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.write_bytes(NOT_UTF8)
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--secrets-file", str(secrets))
    _one_line(result, "is not UTF-8 text")


def test_a_config_file_that_is_not_utf8(tmp_path: Path) -> None:
    config = tmp_path / "config" / "goalbot" / "config.toml"  # XDG_CONFIG_HOME is the test's own
    config.parent.mkdir(parents=True)
    config.write_bytes(b'model = "caf\xe9"\n')
    _one_line(run_cli("sessions", "--plain"), "not UTF-8 text")


@pytest.mark.parametrize("url", ["::::", "localhost:8000", "ftp://models.example.com/v1", "http://:80/v1",
                                 "http://127.0.0.1:notaport/v1"])
def test_an_endpoint_that_is_not_an_address(url: str) -> None:
    result = run_cli("run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes", env={"OPENAI_BASE_URL": url})
    _one_line(result, "is not an http(s) address")


def test_arguments_that_are_not_utf8(db_path: Path) -> None:
    bad = b"\xff\xfe".decode("utf-8", "surrogateescape")
    _one_line(run_cli("--db", str(db_path), "report", bad), "not valid UTF-8")
    _one_line(run_cli("--db", str(db_path), "run", f"buy {bad}", "--no-tui", "--yes"), "goal argument is not valid UTF-8")
    _one_line(run_cli("--db", str(db_path), "run", "x", "--url", f"http://h/{bad}", "--no-tui", "--yes"),
              "url argument is not valid UTF-8")
    _one_line(run_cli("--db", str(db_path), "run", "x", "--model", bad, "--no-tui", "--yes"),
              "model argument is not valid UTF-8")
    assert not db_path.exists()


@pytest.mark.parametrize("goal", ["", "   ", "\n\t"])
def test_an_empty_goal_does_not_run(goal: str, db_path: Path) -> None:
    _one_line(run_cli("--db", str(db_path), "run", goal, "--no-tui", "--yes"), "the goal is empty")
    assert not db_path.exists()


def test_a_browser_that_is_not_there(tmp_path: Path, db_path: Path) -> None:
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--browser-path", str(tmp_path / "no-chromium"))
    _one_line(result, "--browser-path")
    for cdp in ("not a url", "ftp://127.0.0.1:9222"):
        _one_line(run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                          "--cdp-url", cdp), "--cdp-url")


def test_a_cdp_address_nobody_answers_is_a_setup_error(model_server, db_path: Path) -> None:
    model = model_server({})
    result = run_cli("--db", str(db_path), "run", "x", "--url", "http://127.0.0.1:9/", "--no-tui", "--yes",
                     "--cdp-url", "http://127.0.0.1:9", "--base-url", model.base_url)
    assert result.returncode == 2 and "could not reach a browser over CDP" in result.stderr
    assert "Traceback" not in result.stderr


def test_clicking_a_field_labelled_delete_is_not_deleting(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {"planner": [plan("Type the confirmation")],
              "navigator": [answer(call("click", index=element("Type DELETE to confirm")),
                                   call("type", index=element("Type DELETE to confirm"), text="DELETE")),
                            finished()],
              "validator": [verdict(True, "typed"), verdict(True, "typed")]}
    result, events = run_goal(db_path, model_server(script), hardsite.page("danger"), "type the confirmation")
    assert result.returncode == 0, result.stderr
    assert "APPROVAL_REQUEST" not in [e["type"] for e in events]
    assert hardsite.reached("/api/delete") == []

"""The first hour, one step past the examples (issue 73): the model flags before any command and
for the dashboard alone, `goalbot mcp` typed in a terminal and the configuration it prints, and a
batch read as JSON, stopped with Ctrl-C, and never given a flag for an abbreviation of another."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from goalbot.cli.commands import build_parser
from kit import REPO, demo_script, rows, run_cli, wait_until
from tmux_kit import exit_code, tmux, wait_for

UNSET_MODEL_ENV = ("OPENAI_BASE_URL", "GOALBOT_MODEL", "OPENAI_API_KEY")


def _without_model_env() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in UNSET_MODEL_ENV}


# -- 1. the model flags before any command ---------------------------------------------------------


def test_model_flags_given_before_the_command_reach_the_run(site, model_server, db_path: Path) -> None:
    model = model_server(demo_script())
    result = run_cli("--db", str(db_path), "--base-url", model.base_url, "--model", "scripted", "run",
                     "sign in and turn on dark mode", "--url", f"{site.url}/login", "--yes", "--no-tui")
    assert result.returncode == 0, result.stderr
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"
    # Given again after the command, the later one wins, as anywhere else on a command line.
    later = run_cli("--db", str(db_path), "--model", "elsewhere", "doctor", "--json", "--base-url", model.base_url,
                    "--model", "scripted")
    assert "elsewhere" not in later.stdout and "scripted" in later.stdout, later.stdout


def test_bare_goalbot_takes_the_model_flags(db_path: Path) -> None:
    shown = run_cli("--db", str(db_path), "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert shown.returncode == 0, shown.stderr  # no terminal: the help, not "invalid choice"
    assert "--base-url" in shown.stdout and "Traceback" not in shown.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_dashboard_runs_a_typed_goal_on_the_endpoint_its_flags_name(site, model_server, db_path: Path,
                                                                       tmp_path: Path) -> None:
    model = model_server(demo_script())
    session, marker = f"goalbot-flags-{os.getpid()}", tmp_path / "exit-code"
    unset = " ".join(f"-u {name}" for name in UNSET_MODEL_ENV)
    command = (f"env {unset} {sys.executable} -m goalbot --db {db_path} --images none --base-url {model.base_url} "
               f"--model scripted; echo $? > {marker}; sleep 30")
    env = ["-e", f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}", "-e", "TERM=xterm-256color"]
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", str(REPO), *env, command)
    try:
        wait_for(session, "Type a goal and press Enter")
        tmux("send-keys", "-t", session, "-l", f"sign in and turn on dark mode on {site.url}/login")
        tmux("send-keys", "-t", session, "Enter")
        wait_for(session, "The plan waits for your approval")
        tmux("send-keys", "-t", session, "a")
        wait_for(session, " ok  ")
        tmux("send-keys", "-t", session, "C-c")
        assert exit_code(marker) == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert rows(db_path, "select status from sessions")[0]["status"] == "ok"


# -- 3. and 4. goalbot mcp ---------------------------------------------------------------------------


def test_mcp_in_a_terminal_says_what_it_waits_for_and_ctrl_c_ends_it(db_path: Path) -> None:
    terminal, other_end = os.openpty()
    server = subprocess.Popen([sys.executable, "-m", "goalbot", "--db", str(db_path), "mcp", "--base-url",
                               "http://127.0.0.1:9/v1", "--model", "m"], stdin=other_end, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, env=_without_model_env())
    os.close(other_end)
    try:
        said = _stderr_until(server, "Ctrl-C")
        assert "waiting for an MCP host on stdin" in said and "--print-config" in said, said
        server.send_signal(signal.SIGINT)
        assert wait_until(lambda: server.poll() is not None, 15, "goalbot mcp ending on the first Ctrl-C")
        assert server.returncode == 130
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
        os.close(terminal)
    assert "Traceback" not in server.stderr.read()


def _stderr_until(process: subprocess.Popen[str], text: str) -> str:
    """stderr as far as `text`, read on a thread so that a silent process fails on a deadline."""
    import threading

    seen: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            seen.append(line)
            if text in line:
                return

    threading.Thread(target=read, daemon=True).start()
    wait_until(lambda: any(text in line for line in seen), 60, f"{text!r} on stderr")
    return "".join(seen)


def test_the_printed_mcp_config_carries_every_flag_but_the_key_in_clear(db_path: Path, tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.env"
    printed = run_cli("--db", str(db_path), "mcp", "--print-config", "claude", "--base-url", "http://127.0.0.1:9/v1",
                      "--model", "m1", "--approve-plans", "--allow-domain", "shop.test", "--headed",
                      "--api-key", "sk-never-printed", "--secrets-file", str(secrets), env=_without_model_env())
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"]["goalbot"]
    served = entry["args"][entry["args"].index("mcp") + 1:]
    assert _pairs(served) == {"--base-url": "http://127.0.0.1:9/v1", "--model": "m1", "--allow-domain": "shop.test",
                              "--secrets-file": str(secrets.resolve())}
    assert {"--approve-plans", "--headed"} <= set(served)
    assert "sk-never-printed" not in printed.stdout + printed.stderr
    assert entry["env"] == {"OPENAI_API_KEY": "${OPENAI_API_KEY}"} and "OPENAI_API_KEY" in printed.stderr
    # What it prints starts that very server: the same flags parse.
    assert build_parser().parse_args(entry["args"]).model == "m1"


def _pairs(words: list[str]) -> dict[str, str]:
    return {word: following for word, following in zip(words, words[1:])
            if word.startswith("--") and not following.startswith("--")}


# -- 5. and 6. batches -------------------------------------------------------------------------------


def _jobs_file(tmp_path: Path, *jobs: dict[str, object]) -> Path:
    path = tmp_path / "jobs.jsonl"
    path.write_text("\n".join(json.dumps(job) for job in jobs) + "\n")
    return path


def _batch_with_a_job_running(site, model_server, db_path: Path, tmp_path: Path) -> subprocess.Popen[str]:
    """A batch of three jobs whose first is surely running: its planner never answers in time."""
    model = model_server({"planner": [{"fault": "hang", "seconds": 20}]})
    goal = {"goal": "sign in and turn on dark mode", "url": f"{site.url}/login"}
    jobs = _jobs_file(tmp_path, goal, goal, goal)
    batch = subprocess.Popen([sys.executable, "-m", "goalbot", "--db", str(db_path), "batch", str(jobs), "--workers",
                              "1", "--base-url", model.base_url, "--model", "scripted"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                             env=_without_model_env())
    try:
        wait_until(lambda: rows(db_path, "select 1 from batch_jobs j join sessions s on s.id = j.session_id "
                                         "where j.status = 'running' and s.status = 'running'"),
                   90, "a job running with its session")
    except BaseException:
        batch.kill()
        batch.wait(10)
        raise
    return batch


def _statuses(db_path: Path, batch_id: str) -> list[str]:
    status = run_cli("--db", str(db_path), "batch", "status", batch_id, "--json")
    return [job["status"] for job in json.loads(status.stdout)["jobs"]]


def test_batch_status_json_is_json_and_a_stopped_batch_says_so(site, model_server, db_path: Path,
                                                               tmp_path: Path) -> None:
    batch = _batch_with_a_job_running(site, model_server, db_path, tmp_path)
    try:
        batch.send_signal(signal.SIGINT)
        out, err = batch.communicate(timeout=30)
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.wait(10)
    assert batch.returncode == 130, err
    batch_id = rows(db_path, "select id from batches")[0]["id"]
    assert f"batch {batch_id} stopped: 0 of 3 jobs done, 1 cut off" in err, err
    assert f"goalbot batch resume {batch_id}" in err and "Traceback" not in err

    status = run_cli("--db", str(db_path), "batch", "status", batch_id, "--json")
    assert status.returncode == 1, status.stderr
    shown = json.loads(status.stdout)
    assert shown["batch"] == batch_id
    assert [job["status"] for job in shown["jobs"]] == ["interrupted", "pending", "pending"]
    cut = shown["jobs"][0]["session"]
    assert rows(db_path, "select status from sessions where id = ?", cut)[0]["status"] == "interrupted"
    listed = json.loads(run_cli("--db", str(db_path), "batch", "status", "--json").stdout)
    assert [entry["batch"] for entry in listed] == [batch_id]


def test_a_killed_batchs_cut_job_reads_interrupted_as_its_session_does(site, model_server, db_path: Path,
                                                                       tmp_path: Path) -> None:
    batch = _batch_with_a_job_running(site, model_server, db_path, tmp_path)
    batch.kill()  # past any cleanup of its own; its slot dies with it
    batch.wait(30)
    batch_id = rows(db_path, "select id from batches")[0]["id"]
    wait_until(lambda: _statuses(db_path, batch_id) == ["interrupted", "pending", "pending"], 30,
               "the cut job shown as interrupted")
    assert rows(db_path, "select status from sessions")[0]["status"] == "interrupted"


# -- 13. no abbreviation taken for another flag -------------------------------------------------------


def _every_parser(parser: argparse.ArgumentParser, path: str = "goalbot") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from _every_parser(command, f"{path} {name}")


def _taken_for(parser: argparse.ArgumentParser, word: str) -> argparse.Action | None:
    """The action argparse would take `word` for (3.11 answers a tuple, 3.12 a list of them)."""
    found = parser._parse_optional(word)
    if isinstance(found, list):
        found = found[0] if found else None
    return found[0] if found else None


def test_no_abbreviation_of_a_flag_is_taken_for_it_in_any_command() -> None:
    taken: list[str] = []
    checked = set()
    for path, parser in _every_parser(build_parser()):
        flags = [flag for flag in parser._option_string_actions if flag.startswith("--")]
        for flag in flags:
            for end in range(3, len(flag)):
                prefix = flag[:end]
                if prefix in parser._option_string_actions:
                    continue
                checked.add((path, prefix))
                if _taken_for(parser, prefix) is not None:
                    taken.append(f"{path} {prefix} (for {flag})")
    assert ("goalbot batch", "--secret") in checked and len(checked) > 1000
    assert not taken, taken[:20]


def test_batch_secret_is_refused_not_read_as_the_secrets_file(db_path: Path, tmp_path: Path) -> None:
    jobs = _jobs_file(tmp_path, {"goal": "look around", "url": "http://127.0.0.1:9/"})
    refused = run_cli("--db", str(db_path), "batch", str(jobs), "--secret", "PW=hunter2")
    assert refused.returncode == 2 and "unknown flag --secret" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr and not db_path.exists()

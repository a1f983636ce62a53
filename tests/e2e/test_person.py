"""The agent asks the person (`call_user`) and waits; secrets are typed by reference and never
leave the process — not into the store, the printed log, the events or the prompts."""

from __future__ import annotations

import json
from pathlib import Path

from kit import answer, call, demo_script, run_cli, stored_events
from goalbot.agents.control import SessionControl
from goalbot.agents.session import Status
from dashboard_kit import dashboard_app
from tui.images import prepare_images

CODE = "424242"


def _stored_bytes(db_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.is_file())


async def test_a_one_time_code_asked_in_the_dashboard_is_typed_but_never_kept(
    hardsite, model_server, db_path: Path
) -> None:
    prepare_images()
    verdict = answer(call("verdict", is_valid=True, reason="the code is in", confidence=0.9))
    model = model_server({
        "planner": [answer(call("plan", steps=["Enter the verification code"], confidence=0.7))],
        "navigator": [
            answer(call("call_user", question="Please tell me the verification code sent to your phone")),
            answer(call("type", index={"$element": "Verification code"}, text="<secret:answer_1>")),
            answer(call("finished", success=True, summary="typed the code")),
        ],
        "validator": [verdict, verdict],
    })
    control = SessionControl(auto_approve=True)
    app, recorder = dashboard_app(hardsite.page("otp"), "verify the sign-in", model, db_path, control)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            while not control.awaiting_reply:
                await pilot.pause(0.1)
            await pilot.pause(0.2)
            assert "verification code sent to your phone" in str(app.screen.query_one("#question-text").render())
            field = app.screen.query_one("#answer")
            assert field.password  # the code is not shown as it is typed
            for key in CODE:
                await pilot.press(key)
            await pilot.press("enter")
            while app.result is None:
                await pilot.pause(0.1)
            assert app.result.status is Status.OK
    finally:
        recorder.close()
    events = stored_events(db_path)
    typed = next(e for e in events if e["type"] == "ACT_OK" and e["action"]["name"] == "type")
    # The model typed the reference: kept as such (a recipe can type it again), never the code.
    assert typed["action"]["text"] == "<secret:answer_1>" and "typed 6 characters" in typed["message"]
    reply = next(e for e in events if e["type"] == "USER_REPLY")
    assert reply["answer"] == "<secret:answer_1>" and reply["by"] == "dashboard"
    assert next(e for e in events if e["type"] == "ASK_USER")["secret"] is True
    # The page now shows the code in its field: the model is shown the reference instead.
    after = [r for r in model.requests if r["role"] == "navigator"][-1]
    assert "<secret:answer_1>" in json.dumps(after["messages"])
    assert CODE not in json.dumps(model.requests)
    assert CODE.encode() not in _stored_bytes(db_path)


def test_secrets_from_flags_and_a_file_are_typed_by_reference(site, model_server, db_path: Path, tmp_path: Path) -> None:
    script = demo_script()
    first = script["navigator"][0]["tool_calls"]
    first[0]["arguments"]["text"] = "<secret:login_email>"
    first[1]["arguments"]["text"] = "<secret:login_password>"
    secrets_file = tmp_path / "secrets.env"
    secrets_file.write_text("# the demo account\nlogin_email=demo@example.com\n", encoding="utf-8")
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url", f"{site.url}/login",
                     "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted",
                     "--secret", "login_password=demo-pass", "--secrets-file", str(secrets_file))
    assert result.returncode == 0, result.stderr
    assert site.state.snapshot()["dark_mode"] == {"demo@example.com": True}
    navigator = next(r for r in model.requests if r["role"] == "navigator")["messages"][1]["content"]
    assert "Secrets you can type" in navigator and "<secret:login_email>, <secret:login_password>" in navigator
    everything_sent = json.dumps(model.requests)
    assert "demo-pass" not in everything_sent and "demo@example.com" not in everything_sent
    assert "Signed in as <secret:login_email>" in everything_sent  # the page's own text, redacted
    for value in (b"demo-pass", b"demo@example.com"):
        assert value not in _stored_bytes(db_path)
        assert value.decode() not in result.stdout + result.stderr


def test_an_unknown_secret_is_a_failed_action_not_a_crash(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["navigator"][0]["tool_calls"][1]["arguments"]["text"] = "<secret:pasword>"
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "sign in", "--url", f"{site.url}/login", "--no-tui", "--yes",
                     "--base-url", model.base_url, "--model", "scripted", "--max-failures", "1",
                     "--secret", "password=demo-pass")
    assert "Traceback" not in result.stderr
    failure = next(e for e in stored_events(db_path) if e["type"] == "ACT_FAIL")
    assert failure["error"] == "BadAnswer"
    assert failure["message"] == "there is no secret <secret:pasword>; the secrets are: <secret:password>"


def test_with_nobody_to_ask_the_question_is_declined(site, model_server, db_path: Path) -> None:
    script = demo_script()
    script["navigator"].insert(0, answer(call("call_user", question="Which account should I use?")))
    model = model_server(script)
    result = run_cli("--db", str(db_path), "run", "sign in and turn on dark mode", "--url", f"{site.url}/login",
                     "--no-tui", "--yes", "--base-url", model.base_url, "--model", "scripted")
    assert result.returncode == 0, result.stderr
    events = stored_events(db_path)
    reply = next(e for e in events if e["type"] == "USER_REPLY")
    assert reply["declined"] is True and reply["by"] == "nobody to ask"
    failure = next(e for e in events if e["type"] == "ACT_FAIL")
    assert failure["action"]["name"] == "call_user" and "nobody answered" in failure["message"]


def test_bad_secret_flags_are_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    result = run_cli("--db", db, "run", "x", "--yes", "--no-tui", "--secret", "no-equals-sign")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "a secret is NAME=VALUE" in result.stderr
    missing = tmp_path / "nope.env"
    result = run_cli("--db", db, "run", "x", "--yes", "--no-tui", "--secrets-file", str(missing))
    assert result.returncode == 2
    assert result.stderr.strip() == f"goalbot: cannot read the secrets file {missing}: No such file or directory"

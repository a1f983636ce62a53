"""A Playwright trace kept with a session (`--trace always`, `--trace failed`) is a stored artifact:
no file inside it may hold a secret the person handed in, in any form the browser wrote it —
as typed (a field's value in a DOM snapshot), in a GET form's address, in a form's body, escaped
in JSON once or in JSON inside JSON, in base64 — and no picture drawn once the secret was typed."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from kit import answer, call, element, finished, plan, rows, run_goal, verdict
from goalbot.agents.secrets import encodings, secret_pattern
from goalbot.operators.trace_scrub import SECRET_TYPED

SECRET = "p&ss @+/=%wörd~*'(\"<>)"
# How Chromium itself writes it into an address (a GET form) and encodeURIComponent does.
CHROMIUM_FORMS = ("p%26ss+%40%2B%2F%3D%25w%C3%B6rd%7E*%27%28%22%3C%3E%29",
                  "p%26ss%20%40%2B%2F%3D%25w%C3%B6rd~*'(%22%3C%3E)")


def _kept_trace(db_path: Path) -> zipfile.ZipFile:
    found = rows(db_path, "select content from artifacts where kind = 'trace'")
    assert len(found) == 1, "the run kept no trace"
    return zipfile.ZipFile(io.BytesIO(found[0]["content"]))


def _leaks(trace: zipfile.ZipFile, secret: str) -> list[str]:
    """Each file of the trace that holds `secret` in some form, with the form."""
    forms = {*encodings(secret), *(CHROMIUM_FORMS if secret == SECRET else ()), json.dumps(json.dumps(secret))[3:-3]}
    pattern = secret_pattern(secret)
    found = []
    for name in trace.namelist():
        data = trace.read(name)
        text = data.decode("utf-8", errors="replace")
        found += [f"{name}: {form!r}" for form in forms if form.encode() in data]
        found += [f"{name}: {match!r}" for match in pattern.findall(text)]
    return found


def _frames(trace: zipfile.ZipFile) -> list[str]:
    return [name for name in trace.namelist() if name.startswith("screencast/")]


def test_a_trace_kept_always_holds_no_secret_and_no_picture_once_it_is_typed(
        hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Look up the order")],
        "navigator": [answer(call("type", index=element("Order code"), text="<secret:CODE>", submit=True)),
                      finished(summary="found it")],
        "validator": [verdict(True, "the order is shown"), verdict(True, "found", answer_text="found")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("lookup"), "look up my order",
                              "--secret", f"CODE={SECRET}", "--trace", "always", "--trace-screenshots")
    assert result.returncode == 0, result.stderr
    assert any(e["type"] == "OBSERVATION" and "found.html" in e["url"] for e in events)  # the page did get it
    trace = _kept_trace(db_path)
    assert _leaks(trace, SECRET) == []
    # Still a trace worth opening: the actions, the addresses (with the reference in place of the
    # value) and the pictures from before the secret was typed.
    recorded = trace.read("trace.trace").decode()
    assert "<secret:CODE>" in recorded and '"type":"before"' in recorded
    assert "found.html?code=<secret:CODE>" in trace.read("trace.network").decode()
    frames = _frames(trace)
    assert frames, "every picture was dropped, even those from before the secret was typed"
    records = [json.loads(line) for line in recorded.splitlines()]
    listed = {r["file"]: r["timestamp"] for r in records if r.get("type") == "screencast-frame"}
    assert set(listed) == set(frames)  # the viewer never asks for a picture that is not there
    # Pixels cannot be scrubbed: every picture kept was drawn before the secret was first typed.
    typed = [r["startTime"] for r in records if r.get("title") == SECRET_TYPED]
    assert len(typed) == 1 and max(listed.values()) < typed[0], (typed, listed)


def test_a_trace_kept_for_a_failed_run_holds_no_password(site, model_server, db_path: Path) -> None:
    # The demo's password, given as a secret and shown on the sign-in page itself, is sent in a
    # form body and read back from the field: the run then fails, which keeps the trace.
    script = {
        "planner": [plan("Sign in with the demo account")] * 2,
        "navigator": [answer(call("type", index=element("Email"), text="demo@example.com"),
                             call("type", index=element("Password"), text="<secret:PW>"),
                             call("click", index=element("Sign in"))),
                      finished(ok=False, summary="the settings are not there"), finished(ok=False), finished(ok=False)],
        "validator": [verdict(False, "not signed in")] * 4,
    }
    result, _ = run_goal(db_path, model_server(script), f"{site.url}/login", "sign in and turn on dark mode",
                         "--secret", "PW=demo-pass", "--trace", "failed", "--max-failures", "1")
    assert result.returncode != 0, result.stdout
    trace = _kept_trace(db_path)
    assert _leaks(trace, "demo-pass") == []
    assert "<secret:PW>" in trace.read("trace.network").decode()  # the form body, scrubbed in place

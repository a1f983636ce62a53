"""A secret typed into a page comes back in other encodings — in the address of a GET form, in the
page's JSON, in entities — and none of them may reach the store, the printed events, `tail --json`
or a prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit import answer, call, element, finished, plan, run_cli, run_goal, verdict
from goalbot.agents.secrets import Secrets, encodings

SECRET = "p&ss @+/=%wörd~*'(\"<>)"


@pytest.mark.parametrize("seen", [
    "code=p%26ss+%40%2B%2F%3D%25w%C3%B6rd%7E*%27%28%22%3C%3E%29",     # an HTML form's GET address
    "code=p%26ss%20%40%2B%2F%3D%25w%C3%B6rd~*'(%22%3C%3E)",          # encodeURIComponent
    "code=p%26ss%20%40%2b%2f%3d%25w%c3%b6rd%7e%2a%27%28%22%3c%3e%29",  # lower-case hex
    "<p title=\"p&amp;ss @+/=%wörd~*&#x27;(&quot;&lt;&gt;)\">",      # HTML entities
    '{"code": "p&ss @+\\/=%w\\u00f6rd~*\'(\\"<>)"}',                 # JSON escapes
    "cCZzcyBAKy89JXfDtnJkfionKCI8Pik=",                               # base64
])
def test_every_encoding_of_a_secret_is_scrubbed(seen: str) -> None:
    assert "<secret:PW>" in Secrets({"PW": SECRET}).scrub({"data": [seen]})["data"][0]


def test_a_plain_secret_has_only_its_own_forms() -> None:
    assert {form for form in encodings("hunter2") if "%" in form or "&" in form} == set()


def test_a_secret_in_a_get_form_never_leaves_the_process(hardsite, model_server, db_path: Path) -> None:
    hardsite.reset()
    script = {
        "planner": [plan("Look up the order")],
        "navigator": [answer(call("type", index=element("Order code"), text="<secret:CODE>", submit=True)),
                      finished(summary="found it")],
        "validator": [verdict(True, "the order is shown"), verdict(True, "found", answer_text="found")],
    }
    model = model_server(script)
    result, events = run_goal(db_path, model, hardsite.page("lookup"), "look up my order",
                              "--secret", f"CODE={SECRET}")
    assert result.returncode == 0, result.stderr
    reached = [e for e in events if e["type"] == "OBSERVATION" and "found.html" in e["url"]]
    assert reached and reached[0]["url"].endswith("code=<secret:CODE>")  # the page did get it
    stored = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob("*-wal"))
    tail = run_cli("--db", str(db_path), "tail", "--json", "-n", "500")
    prompts = json.dumps(model.requests, ensure_ascii=False)
    for form in encodings(SECRET):
        assert form.encode() not in stored, form
        assert form not in result.stdout + result.stderr, form
        assert form not in tail.stdout, form
        assert form not in prompts, form


def test_a_password_the_model_typed_in_the_clear_is_scrubbed_when_the_page_repeats_it(
        hardsite, model_server, db_path: Path) -> None:
    # No --secret: the model typed the value itself. The password field makes it a secret of the
    # session, so the page's echo of it is scrubbed like a secret the person gave.
    script = {
        "planner": [plan("Try a new password")],
        "navigator": [answer(call("type", index=element("New password"), text="tr0ub4dor"),
                             call("click", index=element("Check"))),
                      finished(summary="checked")],
        "validator": [verdict(True, "checked"), verdict(True, "checked", answer_text="too weak")],
    }
    result, events = run_goal(db_path, model_server(script), hardsite.page("echo"), "try a new password")
    assert result.returncode == 0, result.stderr
    said = [e["announced"] for e in events if e["type"] == "OBSERVATION" and e.get("announced")]
    assert said and said[-1] == ['"<secret:password>" is too weak'], said
    stored = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob("*-wal"))
    assert b"tr0ub4dor" not in stored
    assert "tr0ub4dor" not in result.stdout + result.stderr

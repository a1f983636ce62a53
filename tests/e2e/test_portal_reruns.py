"""Reruns on a portal nobody tuned recipes to (issue 69): hardsite's /portal/, a customer portal
written the way real ones are (tests/hardsite/portal.py). Its invoices each have a link named
"Download", the same on every row; it serves a table or cards at one address, as an A/B test
does; its session ends after a few downloads; its cookie banner comes, or not, or late; its
setting may already be as the recipe leaves it.

Each recording is made with the scripted model picking elements by role and name (a row's own
"Download" is the one after that row's invoice number, as a model reads the page); each rerun has
a dead endpoint, but for the first visit to a layout the recording never saw, whose list only a
model can read: that one call is the heal, and the next reruns read both layouts with none. Every
verdict is the portal's own: the PDFs it served, the setting it stored, never goalbot's report.
Exit status 0 must mean the work was done."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from kit import answer, call, element, finished, plan, rows, run_cli, run_goal, verdict
from hardsite.portal import PASSWORD, Invoice, Portal, invoices, records
from hardsite.server import HardSite

DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens here: a rerun must not need a model
SECRET = f"PW={PASSWORD}"
INVOICE = {"type": "object", "required": ["id", "month", "amount"], "additionalProperties": False,
           "properties": {"id": {"type": "string"}, "month": {"type": "string"}, "amount": {"type": "number"}}}
INVOICES_SCHEMA = {"type": "object", "required": ["invoices"], "additionalProperties": False,
                   "properties": {"invoices": {"type": "array", "minItems": 1, "items": INVOICE}}}


# -- the model's answers -------------------------------------------------------------------------


def row_link(name: str, row_text: str) -> dict[str, str]:
    """The link named `name` in the row that shows `row_text`: every row's link says "Download",
    so a model tells them apart by the invoice number it reads just before."""
    return {"$element": name, "role": "link", "after": row_text}


def sign_in_script() -> dict[str, Any]:
    return {
        "planner": [plan("Sign in")],
        "navigator": [answer(call("type", index=element("Email", role="textbox"), text="alice@example.com")),
                      answer(call("type", index=element("Password", role="textbox"), text="<secret:PW>")),
                      answer(call("click", index=element("Sign in", role="button"))),
                      finished(summary="signed in")],
        "validator": [verdict(True, "signed in: the invoices are shown")],
    }


def download_every_invoice_script(listed: list[Invoice]) -> dict[str, Any]:
    """Reads the invoices with the schema, then clicks each row's own Download."""
    return {
        "planner": [plan("Read the list of invoices", "Download every invoice")],
        "navigator": [answer(call("extract", instruction="every invoice with its month and amount",
                                  key="invoices", schema="invoices")),
                      finished(summary="read"),
                      *[answer(call("click", index=row_link("Download", invoice.id))) for invoice in listed],
                      finished(summary="every invoice downloaded")],
        "extractor": [answer(call("extracted", data={"invoices": records(listed)}))] * 2,
        "validator": [verdict(True, "the invoices are read"), verdict(True, "every invoice downloaded")],
    }


def email_me_script(banner: bool) -> dict[str, Any]:
    """Accepts the cookie banner (when it came), then ticks "E-mail me my invoices" and saves."""
    setting = [answer(call("click", index=element("E-mail me my invoices", role="checkbox"))),
               answer(call("click", index=element("Save", role="button"))), finished(summary="saved")]
    if not banner:
        return {"planner": [plan("Turn on e-mailed invoices and save")], "navigator": setting,
                "validator": [verdict(True, "the setting is on and saved")]}
    return {
        "planner": [plan("Accept the cookies", "Turn on e-mailed invoices and save")],
        "navigator": [answer(call("click", index=element("Accept all", role="button"))),
                      finished(summary="accepted"), *setting],
        "validator": [verdict(True, "the banner is gone"), verdict(True, "the setting is on and saved")],
    }


# -- recording and rerunning ---------------------------------------------------------------------


def _portal(hardsite: HardSite, page: str) -> str:
    return f"{hardsite.url}/portal/{page}"


def _record_sign_in(hardsite: HardSite, model_server: Any, db_path: Path, state: Path) -> None:
    """The site's sign-in recipe, recorded first; its cookies are kept in `state`."""
    result, _ = run_goal(db_path, model_server(sign_in_script()), _portal(hardsite, "sign-in"), "sign in to the portal",
                         "--secret", SECRET, "--save-recipe", "portal-login", "--storage-state", str(state))
    assert result.returncode == 0, result.stderr
    assert hardsite.portal.sign_ins == 1


def _record_invoices_loop(hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path, state: Path,
                          goal: str = "download every invoice") -> None:
    """Signed in, reads three invoices and downloads each; then made one pass per invoice."""
    listed = invoices(1001, 3)
    hardsite.portal.invoices = listed
    schema = tmp_path / "invoices.schema.json"
    schema.write_text(json.dumps(INVOICES_SCHEMA))
    result, _ = run_goal(db_path, model_server(download_every_invoice_script(listed)), _portal(hardsite, "invoices"),
                         goal, "--schema", f"invoices={schema}", "--secret", SECRET, "--save-recipe", "invoices",
                         "--storage-state", str(state))
    assert result.returncode == 0, result.stderr
    assert hardsite.portal.served == [i.id for i in listed]
    made = run_cli("--db", str(db_path), "recipe", "loop", "invoices", "--over", "invoices", "--steps", "2")
    assert made.returncode == 0, made.stderr


def _record_email_me(hardsite: HardSite, model_server: Any, db_path: Path, state: Path, banner: bool) -> None:
    """Recorded with a goal in Korean, from the setting turned off."""
    hardsite.portal.email_invoices = False
    hardsite.portal.ask_consent("yes" if banner else "no")
    result, _ = run_goal(db_path, model_server(email_me_script(banner)), _portal(hardsite, "settings"),
                         "설정에서 청구서 이메일 받기를 켜고 저장해 줘", "--secret", SECRET,
                         "--save-recipe", "email-me", "--storage-state", str(state))
    assert result.returncode == 0, result.stderr
    assert hardsite.portal.email_invoices is True and hardsite.portal.saves == [True]


def _rerun(db_path: Path, name: str, state: Path, endpoint: str = DEAD_ENDPOINT) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("--db", str(db_path), "rerun", name, "--secret", SECRET, "--no-tui", "--yes",
                     "--base-url", endpoint, "--model", "scripted", "--storage-state", str(state), timeout=240)
    assert "Traceback" not in result.stderr, result.stderr
    session = rows(db_path, "select id from sessions order by started_at desc limit 1")[0]["id"]
    events = [dict(type=r["type"], step=r["step"], **json.loads(r["data"] or "{}"))
              for r in rows(db_path, "select type, step, data from events where session_id = ? order by seq", session)]
    return result, events


def _reader(model_server: Any, listed: list[Invoice]) -> str:
    """A model that reads today's invoices off the page when a rerun asks it to: what a layout the
    recording never saw costs, once."""
    return str(model_server({"extractor": [answer(call("extracted", data={"invoices": records(listed)}))]}).base_url)


def _today(portal: Portal, listed: list[Invoice], layout: str = "table") -> None:
    """What the portal lists today; what it served before is forgotten, its sessions are not."""
    with portal.lock:
        portal.invoices, portal.layout = listed, layout
        portal.served.clear()
        portal.bounced.clear()
        portal.drawn.clear()


def _failures(events: list[dict[str, Any]]) -> list[str]:
    """What the events say went wrong: a person's first place to look."""
    return [f"{e['type']}: {e.get('message') or e.get('reason') or e.get('error')}" for e in events
            if e["type"] in ("ACT_FAIL", "STEP_FAIL", "TASK_FAIL", "CHECKPOINT")]


def _fetched_once_each(portal: Portal, listed: list[Invoice], events: list[dict[str, Any]]) -> None:
    served = Counter(portal.served)
    assert served == Counter(i.id for i in listed), (
        f"missing {[i.id for i in listed if not served[i.id]]}, "
        f"twice or more {[k for k, n in served.items() if n > 1]}; the events say {_failures(events)}")


# -- the tests -----------------------------------------------------------------------------------


def test_every_invoice_is_downloaded_again_on_more_invoices_and_on_the_cards_layout(
        hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    state = tmp_path / "state.json"
    _record_sign_in(hardsite, model_server, db_path, state)
    _record_invoices_loop(hardsite, model_server, db_path, tmp_path, state)

    # The cards were never seen: their list is read by the extractor once, then never again.
    for listed, layout, calls in ((invoices(2001, 6), "table", 0), (invoices(3001, 4), "cards", 1),
                                  (invoices(3101, 5), "cards", 0), (invoices(3201, 3), "table", 0)):
        _today(hardsite.portal, listed, layout)
        result, events = _rerun(db_path, "invoices", state, _reader(model_server, listed))
        assert hardsite.portal.drawn and set(hardsite.portal.drawn) == {layout}
        _fetched_once_each(hardsite.portal, listed, events)
        assert result.returncode == 0, (layout, result.stderr[-2000:], _failures(events))
        assert len([e for e in events if e["type"] == "LLM_CALL"]) == calls, (layout, _failures(events))


def test_the_ab_test_picks_the_layout_at_random_and_every_rerun_fetches_every_invoice(
        hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    state = tmp_path / "state.json"
    _record_sign_in(hardsite, model_server, db_path, state)
    _record_invoices_loop(hardsite, model_server, db_path, tmp_path, state, goal="청구서를 전부 내려받아 줘")
    hardsite.portal.set_seed(3)  # draws table, table, cards, cards: one visit to the invoices a rerun
    seen: set[str] = set()
    calls = 0
    for first in (4001, 4101, 4201, 4301):
        listed = invoices(first, 4)
        _today(hardsite.portal, listed, "random")
        result, events = _rerun(db_path, "invoices", state, _reader(model_server, listed))
        seen |= set(hardsite.portal.drawn)
        calls += len([e for e in events if e["type"] == "LLM_CALL"])
        assert result.returncode == 0 and Counter(hardsite.portal.served) == Counter(i.id for i in listed), (
            hardsite.portal.drawn, hardsite.portal.served, result.stderr[-2000:], _failures(events))
    assert seen == {"table", "cards"}, seen  # the seed draws both layouts: both were rerun
    assert calls == 1  # the first cards were read by the model; every other rerun by the kept places


def test_a_session_that_ends_between_two_downloads_is_renewed_or_the_rerun_fails_saying_so(
        hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    state = tmp_path / "state.json"
    _record_sign_in(hardsite, model_server, db_path, state)
    _record_invoices_loop(hardsite, model_server, db_path, tmp_path, state)

    listed = invoices(5001, 4)
    _today(hardsite.portal, listed)
    with hardsite.portal.lock:  # the kept session starts today's rerun afresh, and ends after two PDFs
        hardsite.portal.sessions = {sid: 0 for sid in hardsite.portal.sessions}
        hardsite.portal.expire_after = 2
        signed_before = hardsite.portal.sign_ins
    result, events = _rerun(db_path, "invoices", state)
    assert hardsite.portal.bounced == ["INV-5003"], hardsite.portal.bounced  # the session did end mid-rerun
    missing = [i.id for i in listed if i.id not in hardsite.portal.served]
    if result.returncode == 0:  # renewed: every invoice, each once, after one more sign-in
        assert not missing, f"exit status 0 with {missing} never downloaded: {_failures(events)}"
        _fetched_once_each(hardsite.portal, listed, events)
        assert hardsite.portal.sign_ins == signed_before + 1
    else:  # or stopped, saying it was the sign-in that stopped it
        assert "sign in" in result.stderr.lower(), (result.stderr[-2000:], _failures(events))
    assert PASSWORD not in json.dumps(events)


def test_a_rerun_sets_the_setting_whether_the_cookie_banner_comes_does_not_or_comes_late(
        hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    state = tmp_path / "state.json"
    _record_sign_in(hardsite, model_server, db_path, state)
    _record_email_me(hardsite, model_server, db_path, state, banner=True)

    outcomes = {}
    for banner in ("no", "yes", "late"):
        with hardsite.portal.lock:
            hardsite.portal.email_invoices = False
            hardsite.portal.saves.clear()
        hardsite.portal.ask_consent(banner)
        result, events = _rerun(db_path, "email-me", state)
        outcomes[banner] = (result.returncode, hardsite.portal.email_invoices, list(hardsite.portal.saves),
                            _failures(events))
    told = "\n".join(f"banner {banner}: exit {code}, setting {'on' if on else 'off'}, saved {saves}, {failures}"
                     for banner, (code, on, saves, failures) in outcomes.items())
    assert all(code == 0 and on is True and saves == [True] for code, on, saves, _ in outcomes.values()), told


def test_a_setting_already_as_the_recipe_leaves_it_stays_so(
        hardsite: HardSite, model_server: Any, db_path: Path, tmp_path: Path) -> None:
    hardsite.reset()
    state = tmp_path / "state.json"
    _record_sign_in(hardsite, model_server, db_path, state)
    _record_email_me(hardsite, model_server, db_path, state, banner=False)

    for before in (False, True):
        with hardsite.portal.lock:
            hardsite.portal.email_invoices = before
            hardsite.portal.saves.clear()
        result, events = _rerun(db_path, "email-me", state)
        assert hardsite.portal.email_invoices is True, (
            f"the setting was {'on' if before else 'off'} before the rerun and is off after it; "
            f"saved {hardsite.portal.saves}, rerun exit {result.returncode}")
        assert result.returncode == 0, (before, result.stderr[-2000:], _failures(events))

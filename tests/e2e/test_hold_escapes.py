"""Ways a hostile page tried to send behind a "Send reply" press without a GO, each attacked on a
page the tests serve: a write that freezes the press (a form posted with neutral words, a
synchronous XMLHttpRequest), a write made by a worker (Playwright's routing does not see a
SharedWorker's requests nor any worker's WebSocket), and a write put off past the next action (a
timer, a beacon as the page is left). The site's own log proves what never reached it."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kit import REPO, answer, call, element, finished, open_page, plan, rows, stored_events, verdict, wait_until
from goalbot import actions as A
from goalbot.actions import Outcome
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite


def _send_button(text: str) -> int:
    line = next(line for line in text.splitlines() if line.endswith('button "Send reply"'))
    return int(line[1:line.index("]")])


async def _press_send(browser: BrowserOperator, hardsite: HardSite, how: str) -> A.ActionResult:
    hardsite.reset()
    text = await open_page(browser, f"{hardsite.page('hostile-send')}?how={how}")
    browser.hold_writes()
    # Bounded: before the fix this press never came back.
    return await asyncio.wait_for(browser.execute(A.Click(index=_send_button(text))), 60)


@pytest.mark.parametrize("how, path", [("form-submit", "/api/form"), ("request-submit", "/api/form"),
                                       ("sync-xhr", "/api/sync")])
async def test_a_press_frozen_on_its_held_write_comes_back_and_sends_only_after_the_go(
        browser: BrowserOperator, hardsite: HardSite, how: str, path: str) -> None:
    pressed = await _press_send(browser, hardsite, how)
    assert pressed.outcome is Outcome.HELD and f"POST 127.0.0.1:{hardsite.port()}{path}" in " ".join(pressed.held), pressed
    assert hardsite.reached(path) == []
    released = await browser.release_held()
    assert "sent POST" in released, released
    wait_until(lambda: hardsite.reached(path, "POST"), 30, "the released write")
    assert len(hardsite.reached(path, "POST")) == 1


async def test_not_go_to_a_frozen_press_sends_nothing_and_the_page_answers_again(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    pressed = await _press_send(browser, hardsite, "sync-xhr")
    assert pressed.outcome is Outcome.HELD, pressed
    await asyncio.wait_for(browser.drop_held(), 60)
    assert await asyncio.wait_for(browser.page.evaluate("() => 1 + 1"), 30) == 2  # no longer frozen
    assert hardsite.reached("/api/sync") == []


@pytest.mark.parametrize("how, path, method", [("shared-fetch", "/api/shared", "POST"), ("shared-ws", "/ws", "WS"),
                                               ("worker-ws", "/ws", "WS")])
async def test_what_a_page_hands_a_worker_waits_for_the_go(
        browser: BrowserOperator, hardsite: HardSite, how: str, path: str, method: str) -> None:
    pressed = await _press_send(browser, hardsite, how)
    assert pressed.outcome is Outcome.HELD and "worker" in pressed.held[0] and "yes, see you" in pressed.held[0], pressed
    assert hardsite.reached(path, method) == []
    released = await browser.release_held()
    assert "worker" in released, released
    wait_until(lambda: hardsite.reached(path, method), 30, "what the worker sends after the GO")


async def test_a_page_cannot_lift_its_own_hold_nor_start_a_worker_under_it(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    pressed = await _press_send(browser, hardsite, "worker-ws")
    assert pressed.outcome is Outcome.HELD
    escaped = await browser.page.evaluate("""() => {
        window.__goalbotHold.arm("guess", false);
        window.__goalbotHold.release("guess");
        const tries = [];
        for (const make of [() => new Worker("/hold-worker.js"), () => new Worker.prototype.constructor("/hold-worker.js"),
                            () => new SharedWorker("/hold-shared.js")]) {
          try { make(); tries.push("started"); } catch (e) { tries.push(e.name); }
        }
        return [window.__goalbotHold.armed(), tries];
    }""")
    assert escaped == [True, ["SecurityError", "SecurityError", "SecurityError"]], escaped
    await browser.drop_held()
    assert hardsite.reached("/ws", "WS") == []


async def test_a_write_put_off_past_the_next_action_is_still_held(browser: BrowserOperator, hardsite: HardSite) -> None:
    pressed = await _press_send(browser, hardsite, "later")
    assert pressed.ok and not pressed.held, pressed  # nothing sent yet: no GO to ask for
    later = await browser.execute(A.Wait(seconds=3))
    assert later.outcome is Outcome.HELD and "/api/later" in " ".join(later.held), later
    assert hardsite.reached("/api/later") == []
    await browser.drop_held()


async def test_a_beacon_sent_as_the_page_is_left_is_never_sent_and_the_next_page_is_free(
        browser: BrowserOperator, hardsite: HardSite) -> None:
    pressed = await _press_send(browser, hardsite, "beacon")
    assert pressed.ok and not pressed.held, pressed
    assert (await browser.execute(A.Navigate(url=hardsite.page("reply")))).ok
    # A request the next page makes arrives after anything the page left had sent on its way out.
    await browser.page.evaluate("() => fetch('/api/after')")
    wait_until(lambda: hardsite.reached("/api/after"), 30, "the next page's request")
    assert hardsite.reached("/api/beacon") == []
    # The hold belonged to the page that was pressed: on the next one, writes go as they always did.
    assert (await browser.execute(A.Wait(seconds=0))).ok
    await browser.page.evaluate("() => fetch('/api/free', {method: 'POST', body: '{}'})")
    wait_until(lambda: hardsite.reached("/api/free", "POST"), 30, "a write on the next page")


def _reply_run(hardsite: HardSite, model_server, db_path: Path, how: str, *flags: str) -> subprocess.Popen[str]:
    hardsite.reset()
    model = model_server({
        "planner": [plan("Send the reply to Carol")],
        "navigator": [answer(call("click", index=element("Send reply"))), finished(summary="sent")],
        "validator": [verdict(True, "sent")] * 2,
    })
    return subprocess.Popen(
        [sys.executable, "-m", "goalbot", "--db", str(db_path), "run", "reply to Carol", "--url",
         f"{hardsite.page('hostile-send')}?how={how}", "--no-tui", "--yes", "--await-attach",
         "--base-url", model.base_url, "--model", "scripted", *flags],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )


def _asked(db_path: Path) -> bool:
    return db_path.exists() and bool(rows(db_path, "select 1 from events where type = 'APPROVAL_REQUEST'"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_run_frozen_on_a_held_form_asks_and_a_signal_ends_it_as_cancelled(
        hardsite: HardSite, model_server, db_path: Path, sig: signal.Signals) -> None:
    run = _reply_run(hardsite, model_server, db_path, "form-submit")
    try:
        wait_until(lambda: _asked(db_path), 90, "the GO question")
        run.send_signal(sig)
        _out, errors = run.communicate(timeout=60)
    finally:
        run.kill()
    assert "Traceback" not in errors
    assert rows(db_path, "select status from sessions")[0]["status"] == "cancelled"
    assert hardsite.reached("/api/form") == []


def test_no_answer_within_the_approval_timeout_is_not_go(hardsite: HardSite, model_server, db_path: Path) -> None:
    run = _reply_run(hardsite, model_server, db_path, "sync-xhr", "--approval-timeout", "2")
    try:
        _out, errors = run.communicate(timeout=180)
    finally:
        run.kill()
    assert run.returncode == 1, errors
    denied = [e for e in stored_events(db_path) if e["type"] == "APPROVAL_DENIED"]
    assert denied and "no answer within 2 s" in denied[0]["by"], denied
    assert hardsite.reached("/api/sync") == []


def test_a_go_from_attach_sends_the_frozen_write_once_and_the_run_ends_well(
        hardsite: HardSite, model_server, db_path: Path) -> None:
    from tui.steering import StoreSteering

    run = _reply_run(hardsite, model_server, db_path, "sync-xhr")
    try:
        wait_until(lambda: _asked(db_path), 90, "the GO question")
        session_id = rows(db_path, "select id from sessions")[0]["id"]
        StoreSteering(db_path, session_id).send("grant")
        _out, errors = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 0, errors
    assert hardsite.reached("/api/sync", "POST") == ["yes, see you"]

"""A press on something that says it sends is judged by what it does: opening a reply form needs
no GO, and whatever the page really sends (a request that is not a read, a WebSocket message, a
write put off for a moment) waits for one. The site's own log proves what never reached it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from playwright.async_api import Route

from kit import answer, call, element, finished, open_page, plan, run_goal, verdict, wait_until
from goalbot import actions as A
from goalbot.operators.browser.operator import BrowserOperator
from hardsite.server import HardSite


def _reply_button(text: str, who: str) -> int:
    """The index of the Reply button listed right after `who`'s message."""
    lines = text.splitlines()
    after = lines[next(n for n, line in enumerate(lines) if line.startswith(f"{who}:")) + 1]
    assert after.endswith('button "Reply"'), text
    return int(after[1:after.index("]")])


def _reply_to_bob(hardsite: HardSite, model_server: Any, db_path: Path, *flags: str) -> tuple[Any, list[dict[str, Any]]]:
    hardsite.reset()
    model = model_server({
        "planner": [plan("Answer Bob: see you at noon")],
        "navigator": [
            answer(call("click", index=element("Reply"))),
            answer(call("type", index=element("Your reply"), text="See you at noon")),
            answer(call("click", index=element("Send"))),
            finished(summary="answered Bob"),
        ],
        "validator": [verdict(True, "sent"), verdict(True, "sent")],
    })
    return run_goal(db_path, model, hardsite.page("reply"), "answer Bob: see you at noon", *flags)


def test_opening_a_reply_form_asks_nothing_and_the_send_asks_first(hardsite, model_server, db_path: Path) -> None:
    result, events = _reply_to_bob(hardsite, model_server, db_path)
    judged = [e for e in events if e["type"] == "POLICY" and e["policy"] == "held_writes"]
    assert len(judged) == 2, judged  # "Reply" and "Send" both ran, with the page's writes held
    asked = [e for e in events if e["type"] == "APPROVAL_REQUEST"]
    assert len(asked) == 1 and asked[0]["kind"] == "send", asked
    assert "POST" in asked[0]["what"] and "/api/reply" in asked[0]["what"] and "See you at noon" in asked[0]["what"]
    typed = [e for e in events if e["type"] == "ACT_OK" and e["action"]["name"] == "type"]
    assert typed, "the reply form opened without a GO, so the text could be typed"
    assert events[-1]["type"] == "TASK_CANCEL" and events[-1]["reason"].startswith("NOT GO")
    assert result.returncode == 1
    assert hardsite.reached("/api/reply") == []


def test_after_the_go_the_reply_is_sent_once(hardsite, model_server, db_path: Path) -> None:
    result, events = _reply_to_bob(hardsite, model_server, db_path, "--allow-risky")
    assert result.returncode == 0, result.stderr
    assert hardsite.reached("/api/reply", "POST") == ['{"text":"See you at noon"}']
    granted = [e for e in events if e["type"] == "APPROVAL_GRANTED"]
    assert len(granted) == 1 and granted[0]["kind"] == "send", granted
    sent = next(e for e in events if e["type"] == "ACT_OK" and "after the GO" in e["message"])
    assert "sent POST" in sent["message"] and "/api/reply" in sent["message"]


async def test_a_write_put_off_for_a_moment_is_still_held(browser: BrowserOperator, hardsite: HardSite) -> None:
    hardsite.reset()
    text = await open_page(browser, hardsite.page("reply"))
    browser.hold_writes()
    opened = await browser.execute(A.Click(index=_reply_button(text, "Eve")))
    assert opened.ok, opened.message  # the form opened; nothing was sent yet
    await browser.page.wait_for_function("document.body.innerText.includes('Sending on its own')")
    # The next action, run without a hold of its own, finds the late write still held.
    later = await browser.execute(A.Scroll(direction=A.Direction.DOWN))
    assert later.held and "POST" in later.held[0] and "/api/eager" in later.held[0], later
    assert hardsite.reached("/api/eager") == []
    released = await browser.release_held()
    assert "sent POST" in released, released
    wait_until(lambda: hardsite.reached("/api/eager", "POST"), 30, "the released write")
    assert hardsite.reached("/api/eager", "POST") == ['{"text": "sent without asking"}']


async def test_a_write_that_reaches_the_hold_late_is_still_held(browser: BrowserOperator, hardsite: HardSite) -> None:
    """A request reaches the route a moment after the page makes it: on a loaded machine the next
    action had begun, lifted the hold, and the write the page made under it went out."""
    hardsite.reset()
    text = await open_page(browser, hardsite.page("reply"))
    browser.hold_writes()
    assert (await browser.execute(A.Click(index=_reply_button(text, "Eve")))).ok

    async def late(route: Route) -> None:  # asked before the hold: the write arrives there late
        await asyncio.sleep(0.5)
        await route.fallback()

    await browser.page.context.route("**/api/eager", late)
    await browser.page.wait_for_function("document.body.innerText.includes('Sending on its own')")
    later = await browser.execute(A.Scroll(direction=A.Direction.DOWN))
    assert later.held and "/api/eager" in later.held[0], later  # held, not let through
    assert hardsite.reached("/api/eager") == []
    await browser.release_held()
    wait_until(lambda: hardsite.reached("/api/eager", "POST"), 30, "the released write")


async def test_a_websocket_message_is_held_until_released(browser: BrowserOperator, hardsite: HardSite) -> None:
    hardsite.reset()
    text = await open_page(browser, hardsite.page("reply"))
    browser.hold_writes()
    pressed = await browser.execute(A.Click(index=_reply_button(text, "Dan")))
    assert pressed.held == [f"send a message to 127.0.0.1:{hardsite.port()}/ws: {{\"text\":\"hi Dan\"}}"], pressed
    assert hardsite.reached("/ws", "WS") == []
    await browser.release_held()
    wait_until(lambda: hardsite.reached("/ws", "WS"), 30, "the released message")
    assert hardsite.reached("/ws", "WS") == ['{"text":"hi Dan"}']


async def test_without_a_hold_the_page_sends_as_it_always_did(browser: BrowserOperator, hardsite: HardSite) -> None:
    hardsite.reset()
    await open_page(browser, hardsite.page("reply"))
    await browser.page.evaluate("() => fetch('/api/plain', {method: 'POST', body: '{}'})")
    wait_until(lambda: hardsite.reached("/api/plain", "POST"), 30, "the plain write")

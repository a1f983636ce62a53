"""`--no-tui`: events printed as lines, and the person's decisions asked at the prompt."""

from __future__ import annotations

import asyncio
import getpass
import signal
import threading

from goalbot import eventfmt
from goalbot.agents.control import SessionControl
from goalbot.agents.session import Session, SessionResult
from goalbot.events import Bus, Event, EventType


def run_printing(bus: Bus, session: Session, control: SessionControl) -> SessionResult:
    def show(event: Event) -> None:
        print(eventfmt.line(event), flush=True)
        if event.type is EventType.PLAN_PROPOSED and not control.auto_approve:
            threading.Thread(target=_ask_approval, args=(control,), daemon=True).start()
        if event.type is EventType.APPROVAL_REQUEST and control.can_ask:
            threading.Thread(target=_ask_consent, args=(control, event.data["what"]), daemon=True).start()
        if event.type is EventType.ASK_USER and control.can_ask:
            threading.Thread(target=_ask_question, args=(control, event.data), daemon=True).start()

    bus.subscribe(show)

    async def go() -> SessionResult:
        loop = asyncio.get_running_loop()

        def stop_once() -> None:
            # The first Ctrl-C stops cleanly; should cleanup hang, the next one interrupts it.
            loop.remove_signal_handler(signal.SIGINT)
            control.stop()

        loop.add_signal_handler(signal.SIGINT, stop_once)
        loop.add_signal_handler(signal.SIGTERM, control.stop)
        try:
            return await session.run()
        finally:
            await session.client.close()

    return asyncio.run(go())


def _ask_approval(control: SessionControl) -> None:
    try:
        answer = input("Approve this plan? [y = yes, anything else = reject with that feedback] ").strip()
    except EOFError:
        answer = ""
    if answer.lower() in ("y", "yes"):
        control.approve()
    else:
        control.reject(answer)


def _ask_consent(control: SessionControl, what: str) -> None:
    try:
        answer = input(f"{what} [y = yes, anything else = no] ").strip()
    except EOFError:
        answer = ""
    if answer.lower() in ("y", "yes"):
        control.grant()
    else:
        control.deny()


def _ask_question(control: SessionControl, question: dict[str, object]) -> None:
    prompt = f"The agent asks: {question['question']}\nYour answer (empty to decline): "
    try:
        # A password or a code is not echoed, so it is not left on the screen either.
        answer = getpass.getpass(prompt) if question.get("secret") else input(prompt)
    except EOFError:
        answer = ""
    if answer:
        control.answer(answer)
    else:
        control.decline()
